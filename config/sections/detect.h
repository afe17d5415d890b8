// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <vector>

namespace yolo::config {

// Which detections are kept. Rows and rules: config/sections/detect.cpp.
struct DetectConfig {
  double conf{};
  double iou{};
  std::vector<int> classes;
  int max_detections{};
  bool agnostic_nms{};

  bool operator==(const DetectConfig&) const = default;
};

}  // namespace yolo::config
