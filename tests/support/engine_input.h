// SPDX-License-Identifier: Apache-2.0
#pragma once

// RGB bytes (row-major, 3 per pixel, e.g. from golden_image.h) turned into the network input the
// runtime asks for, so runtime tests feed images the same way.
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "runtime/engine/engine.h"
#include "runtime/quantize/quantizer.h"

namespace yolo::test {

// value / 255 floats, NCHW or NHWC (planar or interleaved RGB).
inline void write_rgb_floats(std::span<const std::uint8_t> rgb, runtime::InputLayout layout,
                             std::span<float> dst) {
  const std::size_t pixels = rgb.size() / 3;
  for (std::size_t p = 0; p < pixels; ++p) {
    for (std::size_t c = 0; c < 3; ++c) {
      const float v = static_cast<float>(rgb[p * 3 + c]) / 255.0F;
      dst[layout == runtime::InputLayout::kNchwFloat ? c * pixels + p : p * 3 + c] = v;
    }
  }
}

// Into the engine's input buffer in its layout; the uint8 layout takes the bytes as they are.
inline void write_rgb_input(runtime::Engine& engine, std::span<const std::uint8_t> rgb) {
  if (engine.input_layout() == runtime::InputLayout::kNhwcUint8) {
    std::memcpy(engine.input_data(), rgb.data(), rgb.size());
    return;
  }
  write_rgb_floats(rgb, engine.input_layout(),
                   std::span(static_cast<float*>(engine.input_data()), rgb.size()));
}

// A quantizer frame source that gives `images` (already at the model's input size) once each.
inline runtime::FrameProvider frames_of(std::vector<std::vector<std::uint8_t>> images) {
  auto next = std::make_shared<std::size_t>(0);
  return [images = std::move(images), next](runtime::InputLayout layout, int, int,
                                            std::span<float> dst) {
    if (*next == images.size()) return false;
    write_rgb_floats(images[(*next)++], layout, dst);
    return true;
  };
}

}  // namespace yolo::test
