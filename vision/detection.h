// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

namespace yolo::vision {

// An axis-aligned box in pixels, corners (x1, y1) top-left and (x2, y2) bottom-right.
struct Box {
  float x1 = 0, y1 = 0, x2 = 0, y2 = 0;

  float width() const { return x2 > x1 ? x2 - x1 : 0.0f; }
  float height() const { return y2 > y1 ? y2 - y1 : 0.0f; }
  float area() const { return width() * height(); }
  bool operator==(const Box&) const = default;
};

// Intersection over union of two boxes; 0 when either is empty.
float iou(const Box& a, const Box& b);

// One detected object: class index into the model's names, confidence, box.
struct Detection {
  int class_id = 0;
  float score = 0;
  Box box;
};

using Detections = std::vector<Detection>;

}  // namespace yolo::vision
