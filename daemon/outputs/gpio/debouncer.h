// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <optional>

namespace yolo::daemon::gpio {

// A button's level once it has held still: contacts bounce for a few milliseconds on every
// press and release. Pure: time is passed in. Fed with every raw level seen (edges or polls), it
// reports a new level only after the raw level has stayed the same for the whole period.
class Debouncer {
 public:
  using Clock = std::chrono::steady_clock;

  Debouncer(std::chrono::milliseconds period, bool level)
      : period_(period), stable_(level), raw_(level) {}

  // The raw level at `t`.
  void sample(bool level, Clock::time_point t);
  // The new stable level once the raw one has held for the period and differs from the last
  // one reported; each change is reported once.
  std::optional<bool> settle(Clock::time_point now);
  // When settle() may report next (nothing while the raw level is the stable one).
  std::optional<Clock::time_point> deadline() const;
  bool level() const { return stable_; }

 private:
  std::chrono::milliseconds period_;
  bool stable_;
  bool raw_;
  Clock::time_point raw_since_{};
};

}  // namespace yolo::daemon::gpio
