// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/gpio/status_led.h"

#include <gtest/gtest.h>

namespace yolo::daemon::gpio {
namespace {

using std::chrono::milliseconds;
using Clock = StatusLed::Clock;

const Clock::time_point t0 = Clock::time_point() + std::chrono::hours(1);

// The LED sampled every 10 ms over `span`: how long it was lit and how many times it lit up.
struct Seen {
  milliseconds lit{0};
  int flashes = 0;
};
Seen watch(const StatusLed& led, Clock::time_point from, milliseconds span) {
  Seen s;
  bool was = false;
  for (milliseconds t{0}; t < span; t += milliseconds(10)) {
    const bool on = led.lit(from + t);
    if (on) s.lit += milliseconds(10);
    if (on && !was) ++s.flashes;
    was = on;
  }
  return s;
}

TEST(StatusLed, ModeFollowsTheMostUrgentState) {
  EXPECT_EQ(led_mode(false, false, false), LedMode::kOff);
  EXPECT_EQ(led_mode(false, false, true), LedMode::kHeartbeat);
  EXPECT_EQ(led_mode(false, true, true), LedMode::kSteady);
  EXPECT_EQ(led_mode(true, true, true), LedMode::kFastBlink);
}

TEST(StatusLed, HeartbeatIsOneShortFlashASecond) {
  StatusLed led;
  led.set_mode(LedMode::kHeartbeat, t0);
  const Seen s = watch(led, t0, milliseconds(3000));
  EXPECT_EQ(s.flashes, 3);
  EXPECT_EQ(s.lit, 3 * StatusLed::kHeartbeatOn);
  EXPECT_TRUE(led.lit(t0));  // a new mode shows at once
  EXPECT_EQ(led.next_change(t0), t0 + StatusLed::kHeartbeatOn);
  EXPECT_EQ(led.next_change(t0 + milliseconds(500)), t0 + StatusLed::kHeartbeatPeriod);
}

TEST(StatusLed, FastBlinkIsFiveFlashesASecond) {
  StatusLed led;
  led.set_mode(LedMode::kFastBlink, t0);
  const Seen s = watch(led, t0, milliseconds(1000));
  EXPECT_EQ(s.flashes, 5);
  EXPECT_EQ(s.lit, milliseconds(500));
}

TEST(StatusLed, SteadyAndOffDoNotChange) {
  StatusLed led;
  EXPECT_EQ(watch(led, t0, milliseconds(2000)).lit, milliseconds(0));
  EXPECT_EQ(led.next_change(t0), Clock::time_point::max());
  led.set_mode(LedMode::kSteady, t0);
  EXPECT_EQ(watch(led, t0, milliseconds(2000)).lit, milliseconds(2000));
  EXPECT_EQ(led.next_change(t0), Clock::time_point::max());
}

TEST(StatusLed, TheSameModeAgainKeepsItsPhase) {
  StatusLed led;
  led.set_mode(LedMode::kHeartbeat, t0);
  led.set_mode(LedMode::kHeartbeat, t0 + milliseconds(50));
  EXPECT_FALSE(led.lit(t0 + milliseconds(120)));
}

}  // namespace
}  // namespace yolo::daemon::gpio
