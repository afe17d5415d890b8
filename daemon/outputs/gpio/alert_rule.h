// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <optional>
#include <vector>

#include "vision/detection.h"

namespace yolo::daemon::gpio {

// What sets an alert line off (one item of gpio.alerts, less the line itself).
struct AlertSpec {
  // Empty: any class.
  std::vector<int> classes;
  float min_score = 0.5f;
  // Frames in a row with a sighting before it goes active.
  int consecutive_frames = 1;
  // How long it stays active after the last sighting.
  std::chrono::milliseconds hold{2000};

  bool operator==(const AlertSpec&) const = default;
};

// Whether an alert line should be active, from the frames seen so far. Pure: time is passed in.
// A frame sights when one of its detections has one of the classes at min_score or more; after
// consecutive_frames such frames in a row the line is active, and it stays so for hold after
// the last of them. A sighting also stands until the next frame says otherwise (at most
// kSightingStands), so a hold shorter than the time between frames does not make it flicker.
class AlertRule {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds kSightingStands{2000};

  explicit AlertRule(AlertSpec spec) : spec_(std::move(spec)) {}

  const AlertSpec& spec() const { return spec_; }
  // One processed frame, at `t`.
  void observe(const vision::Detections& detections, Clock::time_point t);
  bool active(Clock::time_point now) const;
  // When active() turns false if no frame comes before (nothing while it is inactive).
  std::optional<Clock::time_point> deadline(Clock::time_point now) const;

 private:
  bool sights(const vision::Detections& detections) const;

  AlertSpec spec_;
  // Frames in a row that sighted, up to the last one.
  int streak_ = 0;
  // The last frame that completed consecutive_frames in a row.
  std::optional<Clock::time_point> last_confirmed_;
  // Whether the last frame was such a frame.
  bool latest_confirmed_ = false;
};

}  // namespace yolo::daemon::gpio
