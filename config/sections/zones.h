// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

#include "tracking/vocabulary.h"

namespace yolo::config {

// A point as a fraction of the frame: (0, 0) its top-left corner, (1, 1) its bottom-right, so a
// change of resolution does not move it.
struct FramePoint {
  double x{};
  double y{};

  bool operator==(const FramePoint&) const = default;
};

// An area of the frame (a polygon) whose tracked objects are counted, timed and reported.
// Rows and rules: config/sections/zones.cpp.
struct ZoneConfig {
  // Unique among the camera's zones and lines; names MQTT topics, metrics and events.
  std::string name;
  // The camera it belongs to ("main": the daemon's one source today).
  std::string camera;
  // At least three points, each inside the frame ([0, 1] both ways).
  std::vector<FramePoint> points;
  // Class names (the model's) that count; empty means every class.
  std::vector<std::string> classes;
  tracking::Anchor anchor{};
  // An object inside longer than this many seconds raises a loiter event; 0: never.
  double loiter_s{};
  // Seconds the anchor must stay inside (or outside) before enter (or leave) counts, so that a
  // box flickering on the edge counts nothing.
  double inertia_s{};

  bool operator==(const ZoneConfig&) const = default;
};

}  // namespace yolo::config
