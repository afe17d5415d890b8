// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/gpio/debouncer.h"

#include <gtest/gtest.h>

namespace yolo::daemon::gpio {
namespace {

using std::chrono::milliseconds;
using Clock = Debouncer::Clock;

const Clock::time_point t0 = Clock::time_point() + std::chrono::hours(1);

TEST(Debouncer, ABouncingPressCountsOnceWhenItHasSettled) {
  Debouncer d(milliseconds(50), false);
  // Contacts bounce for 6 ms, then stay closed.
  for (int i = 0; i < 7; ++i) d.sample(i % 2 == 0, t0 + milliseconds(i));
  EXPECT_EQ(d.settle(t0 + milliseconds(20)), std::nullopt);
  EXPECT_EQ(d.deadline(), t0 + milliseconds(56));
  EXPECT_EQ(d.settle(t0 + milliseconds(55)), std::nullopt);
  EXPECT_EQ(d.settle(t0 + milliseconds(56)), true);
  EXPECT_EQ(d.settle(t0 + milliseconds(100)), std::nullopt);
  EXPECT_TRUE(d.level());
  EXPECT_EQ(d.deadline(), std::nullopt);
  // The release bounces too and is reported once.
  d.sample(false, t0 + milliseconds(500));
  d.sample(true, t0 + milliseconds(501));
  d.sample(false, t0 + milliseconds(503));
  EXPECT_EQ(d.settle(t0 + milliseconds(553)), false);
}

TEST(Debouncer, AGlitchShorterThanThePeriodIsNothing) {
  Debouncer d(milliseconds(50), false);
  d.sample(true, t0);
  d.sample(false, t0 + milliseconds(30));
  EXPECT_EQ(d.settle(t0 + milliseconds(200)), std::nullopt);
  EXPECT_FALSE(d.level());
  EXPECT_EQ(d.deadline(), std::nullopt);
}

TEST(Debouncer, StartsFromTheLevelTheLineHasWhenRequested) {
  // Held down when the daemon started: only a release, no press.
  Debouncer d(milliseconds(10), true);
  d.sample(true, t0);
  EXPECT_EQ(d.settle(t0 + milliseconds(100)), std::nullopt);
  d.sample(false, t0 + milliseconds(100));
  EXPECT_EQ(d.settle(t0 + milliseconds(110)), false);
}

}  // namespace
}  // namespace yolo::daemon::gpio
