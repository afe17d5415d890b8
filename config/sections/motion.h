// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

#include "config/sections/zones.h"

namespace yolo::config {

// Motion-gated detection (issue 42): the model runs where something moved, on crops at its input
// size, with a whole-frame pass every full_frame_s. Rows and rules: config/sections/motion.cpp;
// the settings' meaning: vision/motion.h and vision/regions.h.
struct MotionConfig {
  bool enabled{};
  int width{};
  int threshold{};
  double min_area{};
  double learning_rate{};
  double full_frame_s{};
  int max_regions{};

  bool operator==(const MotionConfig&) const = default;
};

// A camera's `motion` key.
enum class CameraMotion { kSection, kOn, kOff };

// An area of one camera's frame where motion never counts (a clock, a tree, the sky).
struct MotionMaskConfig {
  std::string camera;
  // At least three corners, each inside the frame.
  std::vector<FramePoint> points;

  bool operator==(const MotionMaskConfig&) const = default;
};

}  // namespace yolo::config
