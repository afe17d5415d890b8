// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

#include "config/sections/motion.h"
#include "config/sections/source.h"

namespace yolo::config {

// One of several cameras one daemon serves with one model. Rows and rules:
// config/sections/cameras.cpp.
struct CameraConfig {
  // Unique among the cameras; names its stream, topics, metric labels, zones and lines.
  std::string name;
  SourceConfig source;
  // The most frames per second it is detected at (Frigate's detect.fps); 0: every frame the
  // daemon can take.
  double detect_fps{};
  // Motion-gated detection on or off for it, or as the motion section says.
  CameraMotion motion{};

  bool operator==(const CameraConfig&) const = default;
};

}  // namespace yolo::config
