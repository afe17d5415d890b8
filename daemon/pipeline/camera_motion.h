// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <deque>
#include <mutex>
#include <optional>

#include "config/config.h"
#include "daemon/core/daemon_status.h"
#include "detector/motion_gate.h"

namespace yolo::daemon {

// The motion gate a camera runs with (its motion settings and its masks); none when motion is
// off for it.
std::optional<detector::MotionGateSettings> motion_settings(const config::Config& config,
                                                            const config::CameraConfig& camera);

// One camera's motion-gated detection and what it did over its last frames.
class CameraMotion {
 public:
  // Any thread: the settings from the camera's next frame on (none: every frame detected whole).
  void configure(std::optional<detector::MotionGateSettings> settings);
  // Inference thread: the gate for this frame, with new settings applied (a changed gate starts
  // its background again); null while motion is off.
  detector::MotionGate* gate();
  // Inference thread: what the gate did with a frame.
  void record(const detector::GatedDetections& frame);
  // Any thread: none while motion is off.
  std::optional<MotionStatus> status() const;

 private:
  struct Entry {
    detector::Pass pass;
    int runs;
    double ms;
  };

  // Inference thread only.
  std::optional<detector::MotionGate> gate_;

  mutable std::mutex mutex_;
  std::optional<std::optional<detector::MotionGateSettings>> pending_;
  bool enabled_ = false;
  std::deque<Entry> recent_;
};

}  // namespace yolo::daemon
