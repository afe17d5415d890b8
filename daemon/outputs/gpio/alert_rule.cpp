// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/gpio/alert_rule.h"

#include <algorithm>

namespace yolo::daemon::gpio {

bool AlertRule::sights(const vision::Detections& detections, const ZoneOccupancy& occupancy) const {
  if (!spec_.zone.empty()) {
    const auto it = occupancy.find(spec_.zone);
    return it != occupancy.end() && it->second > 0;
  }
  return std::any_of(detections.begin(), detections.end(), [&](const vision::Detection& d) {
    const bool wanted =
        spec_.classes.empty() ||
        std::find(spec_.classes.begin(), spec_.classes.end(), d.class_id) != spec_.classes.end();
    return wanted && d.score >= spec_.min_score;
  });
}

void AlertRule::observe(const vision::Detections& detections, Clock::time_point t,
                        const ZoneOccupancy& occupancy) {
  streak_ = sights(detections, occupancy) ? streak_ + 1 : 0;
  latest_confirmed_ = streak_ >= spec_.consecutive_frames;
  if (latest_confirmed_) last_confirmed_ = t;
}

std::optional<AlertRule::Clock::time_point> AlertRule::deadline(Clock::time_point now) const {
  if (!last_confirmed_) return std::nullopt;
  Clock::time_point end = *last_confirmed_ + spec_.hold;
  if (latest_confirmed_) end = std::max(end, *last_confirmed_ + kSightingStands);
  if (now >= end) return std::nullopt;
  return end;
}

bool AlertRule::active(Clock::time_point now) const {
  return deadline(now).has_value();
}

}  // namespace yolo::daemon::gpio
