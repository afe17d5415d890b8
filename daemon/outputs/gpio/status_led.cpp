// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/gpio/status_led.h"

namespace yolo::daemon::gpio {

namespace {

struct Blink {
  std::chrono::milliseconds on;
  std::chrono::milliseconds period;
};

Blink blink_of(LedMode mode) {
  return mode == LedMode::kHeartbeat ? Blink{StatusLed::kHeartbeatOn, StatusLed::kHeartbeatPeriod}
                                     : Blink{StatusLed::kFastOn, StatusLed::kFastPeriod};
}

}  // namespace

LedMode led_mode(bool error, bool camera_lost, bool frames_flowing) {
  if (error) return LedMode::kFastBlink;
  if (camera_lost) return LedMode::kSteady;
  return frames_flowing ? LedMode::kHeartbeat : LedMode::kOff;
}

void StatusLed::set_mode(LedMode mode, Clock::time_point t) {
  if (mode == mode_) return;
  mode_ = mode;
  since_ = t;
}

bool StatusLed::lit(Clock::time_point now) const {
  switch (mode_) {
    case LedMode::kOff:
      return false;
    case LedMode::kSteady:
      return true;
    case LedMode::kHeartbeat:
    case LedMode::kFastBlink: {
      const Blink b = blink_of(mode_);
      return (now - since_) % b.period < b.on;
    }
  }
  return false;
}

StatusLed::Clock::time_point StatusLed::next_change(Clock::time_point now) const {
  if (mode_ == LedMode::kOff || mode_ == LedMode::kSteady) return Clock::time_point::max();
  const Blink b = blink_of(mode_);
  const auto phase = (now - since_) % b.period;
  return now - phase + (phase < b.on ? b.on : b.period);
}

}  // namespace yolo::daemon::gpio
