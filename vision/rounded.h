// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cmath>

namespace yolo::vision {

// `value` to the nearest multiple of `step` (0.01, 0.1, 1), as the double nearest that decimal,
// so JSON shows 155.42 and not 155.42000000000002.
inline double rounded(double value, double step) {
  const double scale = std::round(1.0 / step);
  return std::round(value * scale) / scale;
}

}  // namespace yolo::vision
