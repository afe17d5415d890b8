// SPDX-License-Identifier: Apache-2.0
#include "vision/detection.h"

#include <algorithm>

namespace yolo::vision {

float iou(const Box& a, const Box& b) {
  const float iw = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
  const float ih = std::min(a.y2, b.y2) - std::max(a.y1, b.y1);
  if (iw <= 0 || ih <= 0) return 0.0f;
  const float inter = iw * ih;
  const float uni = a.area() + b.area() - inter;
  return uni > 0 ? inter / uni : 0.0f;
}

}  // namespace yolo::vision
