// SPDX-License-Identifier: Apache-2.0
#pragma once

// The per-pixel step of letterboxing into a float tensor: a row of BGR bytes to RGB floats in
// [0, 1], planar (NCHW) or interleaved (NHWC). Each value is v / 255 computed in float32 as numpy
// does, so tensors match the golden inputs bit for bit. aarch64 (the Pi) converts 16 pixels at a
// time with NEON, dividing exactly like the plain loop; elsewhere the plain loop runs.

#include <cstddef>
#include <cstdint>

namespace yolo::vision {

// r[x], g[x], b[x] = the x-th pixel of `bgr` (3 bytes each) / 255, for x < n.
void bgr_to_planar_unit(const std::uint8_t* bgr, float* r, float* g, float* b, std::size_t n);
// rgb[3x], rgb[3x + 1], rgb[3x + 2] = red, green, blue of the x-th pixel of `bgr` / 255.
void bgr_to_rgb_unit(const std::uint8_t* bgr, float* rgb, std::size_t n);

// The plain C++ loops the functions above use where there is no vector path, and for the pixels
// after the last whole vector; tests compare the two.
void bgr_to_planar_unit_plain(const std::uint8_t* bgr, float* r, float* g, float* b, std::size_t n);
void bgr_to_rgb_unit_plain(const std::uint8_t* bgr, float* rgb, std::size_t n);

}  // namespace yolo::vision
