// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "vision/detection.h"

namespace yolo::vision {

struct NmsOptions {
  // A box is dropped when its IoU with a better kept box is greater than this.
  float iou = 0.45f;
  // Compare boxes across classes too (one object, one box, whatever the class).
  bool agnostic = false;
  // Keep at most this many (the best ones).
  int max_detections = 300;
};

// Greedy non-maximum suppression with torchvision's semantics: best score first; a box survives
// unless a kept box of the same class (of any class when agnostic) overlaps it with IoU > iou.
// Returns the kept boxes by descending score. Class ids must not be negative.
Detections nms(Detections candidates, const NmsOptions& options);

}  // namespace yolo::vision
