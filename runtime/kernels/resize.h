// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "runtime/kernels/tensor_ref.h"

namespace yolo::runtime::kernels {

// Resize's coordinate_transformation_mode values we implement for nearest.
enum class CoordinateTransform : std::uint8_t {
  kHalfPixel,
  kAsymmetric,
  kAlignCorners,
  kPytorchHalfPixel,
  kTfHalfPixelForNn,
};
// Resize's nearest_mode values.
enum class NearestMode : std::uint8_t { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil };

// Parse the attribute strings; throw naming the value otherwise.
CoordinateTransform coordinate_transform_from_string(std::string_view mode);
NearestMode nearest_mode_from_string(std::string_view mode);

// Output shape from either scales (one per dim, out = floor(in * scale)) or sizes (one per dim);
// exactly one of them must be non-empty.
Shape resize_shape(std::span<const std::int64_t> in, std::span<const float> scales,
                   std::span<const std::int64_t> sizes);
// The scales the kernel uses: `scales` if given, else out / in per dim (as ONNX defines it).
std::vector<float> resize_scales(std::span<const std::int64_t> in,
                                 std::span<const std::int64_t> out, std::span<const float> scales);

// Nearest-neighbour Resize of a row-major tensor of any rank and dtype. When every dim's source
// index is dst / factor (YOLO's 2x upsample, for any mode that maps so), it takes a fast path.
// Dims with scale 1 map one to one whatever the mode, as in ONNX Runtime.
void resize_nearest(ConstTensorRef in, std::span<const float> scales, CoordinateTransform transform,
                    NearestMode mode, TensorRef out);

// Integer-factor nearest upsample of NHWC float32 activations with explicit pixel strides (in
// elements), so the engine can read and write channel slices of wider buffers: out pixel
// (n, y, x) channel c = in pixel (n, y / factor_h, x / factor_w) channel c, for c < channels.
// out has height * factor_h rows and width * factor_w columns.
struct NhwcUpsample {
  std::int64_t batch = 1;
  std::int64_t height = 0;
  std::int64_t width = 0;
  std::int64_t channels = 0;
  std::int64_t factor_h = 2;
  std::int64_t factor_w = 2;
  std::int64_t in_pixel_stride = 0;   // >= channels
  std::int64_t out_pixel_stride = 0;  // >= channels
};
void upsample_nearest_nhwc(const NhwcUpsample& params, const float* in, float* out);

}  // namespace yolo::runtime::kernels
