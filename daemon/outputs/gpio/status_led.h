// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>

namespace yolo::daemon::gpio {

// What the status LED shows, most urgent last.
enum class LedMode {
  kOff,        // no frames (starting, or stalled)
  kHeartbeat,  // frames are processed: a short blink once a second
  kSteady,     // the camera is lost: on
  kFastBlink,  // an error needs attention (a refused reload, a model that failed): 5 blinks a
               // second
};

// The mode for the daemon's state: an error first, then a lost camera, then whether frames flow.
LedMode led_mode(bool error, bool camera_lost, bool frames_flowing);

// The LED's blink pattern over time. Pure: time is passed in. A change of mode starts its
// pattern with the LED on, so it shows at once.
class StatusLed {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds kHeartbeatOn{100};
  static constexpr std::chrono::milliseconds kHeartbeatPeriod{1000};
  static constexpr std::chrono::milliseconds kFastOn{100};
  static constexpr std::chrono::milliseconds kFastPeriod{200};

  LedMode mode() const { return mode_; }
  // Takes `mode` from `t` on; the same mode again changes nothing.
  void set_mode(LedMode mode, Clock::time_point t);
  bool lit(Clock::time_point now) const;
  // When lit() changes next (Clock::time_point::max() for a mode that does not blink).
  Clock::time_point next_change(Clock::time_point now) const;

 private:
  LedMode mode_ = LedMode::kOff;
  Clock::time_point since_{};
};

}  // namespace yolo::daemon::gpio
