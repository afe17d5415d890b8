// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vision/detection.h"

namespace yolo::daemon::gpio {

// Tracked objects in each zone now, by zone name (SceneState::occupancy).
using ZoneOccupancy = std::map<std::string, int, std::less<>>;

// What sets an alert line off (one item of gpio.alerts, less the line itself).
struct AlertSpec {
  // Empty: any class.
  std::vector<int> classes;
  float min_score = 0.5f;
  // Frames in a row with a sighting before it goes active.
  int consecutive_frames = 1;
  // How long it stays active after the last sighting.
  std::chrono::milliseconds hold{2000};
  // Non-empty: a frame sights while this zone's occupancy is above 0, whatever its detections
  // (the zone counts only its own classes, so classes and min_score do not apply).
  std::string zone;

  bool operator==(const AlertSpec&) const = default;
};

// Whether an alert line should be active, from the frames seen so far. Pure: time is passed in.
// A frame sights when one of its detections has one of the classes at min_score or more (or,
// for a zone's rule, when the zone holds a tracked object); after
// consecutive_frames such frames in a row the line is active, and it stays so for hold after
// the last of them. A sighting also stands until the next frame says otherwise (at most
// kSightingStands), so a hold shorter than the time between frames does not make it flicker.
class AlertRule {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds kSightingStands{2000};

  explicit AlertRule(AlertSpec spec) : spec_(std::move(spec)) {}

  const AlertSpec& spec() const { return spec_; }
  // One processed frame, at `t`, with the zones' occupancy after it (empty with tracking off).
  void observe(const vision::Detections& detections, Clock::time_point t,
               const ZoneOccupancy& occupancy = {});
  bool active(Clock::time_point now) const;
  // When active() turns false if no frame comes before (nothing while it is inactive).
  std::optional<Clock::time_point> deadline(Clock::time_point now) const;

 private:
  bool sights(const vision::Detections& detections, const ZoneOccupancy& occupancy) const;

  AlertSpec spec_;
  // Frames in a row that sighted, up to the last one.
  int streak_ = 0;
  // The last frame that completed consecutive_frames in a row.
  std::optional<Clock::time_point> last_confirmed_;
  // Whether the last frame was such a frame.
  bool latest_confirmed_ = false;
};

}  // namespace yolo::daemon::gpio
