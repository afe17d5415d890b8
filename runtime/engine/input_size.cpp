// SPDX-License-Identifier: Apache-2.0
#include "runtime/engine/input_size.h"

#include <algorithm>
#include <cstdint>

namespace yolo::runtime {

std::string to_string(const InputSize& size) {
  const std::string dims = std::to_string(size.height) + "x" + std::to_string(size.width);
  switch (size.mode) {
    case InputSize::Mode::kModel:
      return "the model's own";
    case InputSize::Mode::kFixed:
      return dims;
    case InputSize::Mode::kAuto:
      return size.has_frame() ? "auto for " + dims + " frames" : "auto";
  }
  return dims;
}

InputSize aspect_input(int frame_height, int frame_width, int long_side, int stride) {
  const auto round_up = [stride](std::int64_t v) {
    return static_cast<int>(std::max<std::int64_t>(stride, (v + stride - 1) / stride * stride));
  };
  const std::int64_t longer = std::max(frame_height, frame_width);
  // The short side at the long side's scale, rounded up so the letterbox pads the least
  // (360 -> 384 for 720p at 640): the source is never cropped.
  const std::int64_t shorter = std::min(frame_height, frame_width);
  const std::int64_t scaled = (shorter * long_side + longer - 1) / longer;
  const int l = round_up(long_side);
  const int s = round_up(scaled);
  return frame_height >= frame_width ? InputSize::fixed(l, s) : InputSize::fixed(s, l);
}

}  // namespace yolo::runtime
