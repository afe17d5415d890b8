// SPDX-License-Identifier: Apache-2.0
#include "detector/check_budget.h"

#include <gtest/gtest.h>

#include <random>
#include <stdexcept>

namespace yolo::detector {
namespace {

using Clock = CheckBudget::Clock;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

TEST(CheckBudget, TheFirstCheckIsDueAtOnceAndTheNextWaitsForItsCost) {
  const Clock::time_point t0{};
  CheckBudget budget(0.02, minutes(5), t0);
  EXPECT_TRUE(budget.due(t0));
  // 0.1 s of CPU at 2 % of a core: the next may start 5 s after this one started.
  budget.spent(t0, t0 + milliseconds(300), milliseconds(100));
  EXPECT_FALSE(budget.due(t0 + seconds(4)));
  EXPECT_TRUE(budget.due(t0 + seconds(5)));
  EXPECT_FALSE(budget.forced(t0 + seconds(5)));
  EXPECT_EQ(budget.checks(), 1);
}

TEST(CheckBudget, NeverAboveTheShareUnderLoad) {
  // Checks whose CPU cost varies from 50 ms to 1.5 s (a busy device makes each dearer), started
  // as soon as they are due and taking three times their CPU time in wall time: whenever the next
  // may start, the share used since the budget began is at or under 2 %.
  std::mt19937 random(7);
  std::uniform_int_distribution<int> cost_ms(50, 1500);
  const Clock::time_point t0{};
  CheckBudget budget(0.02, minutes(5), t0);
  Clock::time_point now = t0;
  while (now < t0 + std::chrono::hours(24)) {
    if (budget.due(now)) {
      EXPECT_LE(budget.used_share(now), 0.02 + 1e-9);
      const milliseconds cpu(cost_ms(random));
      budget.spent(now, now + 3 * cpu, cpu);
      now += 3 * cpu;
    } else {
      now = budget.next();
    }
  }
  EXPECT_GT(budget.checks(), 1000);
  EXPECT_GT(budget.used_share(now), 0.015);
}

TEST(CheckBudget, OneCheckEveryMaxIntervalWhateverItCosts) {
  const Clock::time_point t0{};
  CheckBudget budget(0.02, minutes(5), t0);
  // 10 s of CPU would wait 500 s at 2 %: the longest interval brings it forward to 300 s.
  budget.spent(t0, t0 + seconds(20), seconds(10));
  EXPECT_FALSE(budget.due(t0 + seconds(299)));
  EXPECT_TRUE(budget.due(t0 + seconds(300)));
  EXPECT_TRUE(budget.forced(t0 + seconds(300)));
}

TEST(CheckBudget, StarvedWhenNoCheckEndsForTwiceTheInterval) {
  const Clock::time_point t0{};
  CheckBudget budget(0.02, minutes(5), t0);
  EXPECT_FALSE(budget.starved(t0 + minutes(10)));
  EXPECT_TRUE(budget.starved(t0 + minutes(11)));
  budget.spent(t0 + minutes(11), t0 + minutes(12), milliseconds(100));
  EXPECT_FALSE(budget.starved(t0 + minutes(13)));
}

TEST(CheckBudget, AShareOutOfRangeIsRefused) {
  const Clock::time_point t0{};
  EXPECT_THROW(CheckBudget(0.0, minutes(5), t0), std::invalid_argument);
  EXPECT_THROW(CheckBudget(1.5, minutes(5), t0), std::invalid_argument);
  EXPECT_THROW(CheckBudget(0.02, seconds(0), t0), std::invalid_argument);
}

}  // namespace
}  // namespace yolo::detector
