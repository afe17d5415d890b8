// SPDX-License-Identifier: Apache-2.0
#pragma once

// The window loop of the reference convolutions and poolings in these tests.

#include <cstddef>

#include "runtime/kernels/window2d.h"

namespace yolo::test {

// Calls tap(ky, kx, y, x) for each tap (ky, kx) of window `w` placed at (oy, ox) whose position
// y = oy * stride + ky * dilation - pad_top (x likewise) lies inside the height x width plane.
template <typename Tap>
void for_each_tap(const runtime::kernels::Window2d& w, std::size_t oy, std::size_t ox,
                  std::size_t height, std::size_t width, Tap&& tap) {
  for (std::size_t ky = 0; ky < w.kernel_height; ++ky) {
    const long y = long(oy * w.stride_height + ky * w.dilation_height) - long(w.pad_top);
    if (y < 0 || y >= long(height)) continue;
    for (std::size_t kx = 0; kx < w.kernel_width; ++kx) {
      const long x = long(ox * w.stride_width + kx * w.dilation_width) - long(w.pad_left);
      if (x < 0 || x >= long(width)) continue;
      tap(ky, kx, std::size_t(y), std::size_t(x));
    }
  }
}

}  // namespace yolo::test
