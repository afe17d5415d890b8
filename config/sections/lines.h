// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

#include "config/sections/zones.h"
#include "tracking/vocabulary.h"

namespace yolo::config {

// A counting line: a segment between two frame points; a tracked object's anchor crossing it is
// counted once per crossing, in or out. Rows and rules: config/sections/lines.cpp.
struct LineConfig {
  // Unique among the camera's zones and lines.
  std::string name;
  std::string camera;
  FramePoint from;
  FramePoint to;
  // The side that is "in" (crossing into it is direction in): above or below for a line that is
  // not vertical, left or right for one that is not horizontal.
  tracking::Side in{};
  // Class names that count; empty: every class.
  std::vector<std::string> classes;
  tracking::Anchor anchor{};
  // How far (a fraction of the frame's diagonal) the anchor must get past the line on the other
  // side before a crossing counts: a box jittering on the line counts nothing.
  double hysteresis{};

  bool operator==(const LineConfig&) const = default;
};

}  // namespace yolo::config
