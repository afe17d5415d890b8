// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/gpio/debouncer.h"

namespace yolo::daemon::gpio {

void Debouncer::sample(bool level, Clock::time_point t) {
  if (level == raw_) return;
  raw_ = level;
  raw_since_ = t;
}

std::optional<bool> Debouncer::settle(Clock::time_point now) {
  if (raw_ == stable_ || now - raw_since_ < period_) return std::nullopt;
  stable_ = raw_;
  return stable_;
}

std::optional<Debouncer::Clock::time_point> Debouncer::deadline() const {
  if (raw_ == stable_) return std::nullopt;
  return raw_since_ + period_;
}

}  // namespace yolo::daemon::gpio
