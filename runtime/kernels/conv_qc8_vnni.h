// SPDX-License-Identifier: Apache-2.0
#pragma once

// Per-channel int8 convolution (the QC8 scheme of runtime/xnn/int8.h) on x86 AVX-512 VNNI, with the
// activation lookup table fused into the output. XNNPACK's 2022 QC8 kernels predate VNNI and run
// an int8 conv here barely faster than FP32; vpdpbusd does 64 multiply-adds per instruction where
// an FP32 FMA does 16. Other CPUs (the Pi's Arm cores have XNNPACK's dot-product kernels) use
// xnn::Conv2dQC8; `available()` says which.
//
// Output channels are the vector lanes (16 per zmm, up to 64 per block) except in narrow layers
// (at most 16 output channels), whose inside runs of 16 pixels put the pixels in the lanes.
//
// Results are bit-identical to xnn::Conv2dQC8: the int32 sum is converted to float, multiplied by
// the same float scale input.scale * weight_scale[oc] / output.scale, clamped, rounded to nearest
// even and offset by the output zero point.

#include <pthreadpool.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "runtime/kernels/window2d.h"

namespace yolo::runtime::kernels {

// One group (groups == 1) 2-D convolution over NHWC int8 tensors whose pixels may be wider than
// their channel count (pixel strides in bytes; concat and split write and read channel slices).
struct ConvQC8Geometry {
  Window2d window;
  std::size_t input_channels = 0;
  std::size_t output_channels = 0;
  std::size_t input_pixel_stride = 0;   // 0: dense
  std::size_t output_pixel_stride = 0;  // 0: dense
};

struct ConvQC8Quant {
  float input_scale = 1.0F;
  std::int8_t input_zero_point = 0;
  float output_scale = 1.0F;
  std::int8_t output_zero_point = 0;
  std::int8_t output_min = INT8_MIN;
  std::int8_t output_max = INT8_MAX;
};

class ConvQC8Vnni {
 public:
  // True when this CPU has AVX-512 BW, VL, VNNI and VBMI (the table lookup).
  static bool available();

  // `weights` int8 OIHW, `weight_scales` one per output channel, `bias` int32 per output channel
  // in units of input_scale * weight_scale (or empty). `table`, when given, maps every output
  // byte v to table[uint8_t(v)] (an activation function on int8, e.g. SiLU). Throws
  // std::invalid_argument on inconsistent sizes and std::runtime_error when !available().
  ConvQC8Vnni(const ConvQC8Geometry& geometry, const ConvQC8Quant& quant,
              std::span<const std::int8_t> weights, std::span<const float> weight_scales,
              std::span<const std::int32_t> bias,
              std::optional<std::array<std::int8_t, 256>> table = std::nullopt);

  std::size_t output_height(std::size_t input_height) const;
  std::size_t output_width(std::size_t input_width) const;

  // input [batch][height][width][input_pixel_stride] -> output
  // [batch][oh][ow][output_pixel_stride]; reads only the first input_channels and writes only the
  // first output_channels of each pixel.
  void run(std::size_t batch, std::size_t height, std::size_t width, const std::int8_t* input,
           std::int8_t* output, pthreadpool_t pool) const;

 private:
  ConvQC8Geometry g_;
  ConvQC8Quant q_;
  // The reduction runs over `groups_` groups of four int8 values for each of `taps_` taps. A tap
  // is one kernel position, or, when the input has a channel count that is not a multiple of 4
  // (the first conv: 3 channels), a whole kernel row read as one piece ("kernel rows"), so that
  // no multiply-add is wasted on padding channels.
  bool kernel_rows_ = false;
  std::size_t taps_ = 0;
  std::size_t groups_ = 0;
  // Per block of up to 64 output channels: [tap][group][vector of 16 channels][4 values].
  std::vector<std::int8_t> packed_;
  std::vector<std::size_t> block_offset_;
  // Per output channel (padded to 16): bias minus the zero-point correction, and the float scale.
  std::vector<std::int32_t> bias_;
  std::vector<float> scale_;
  // The padding pixel: every channel at the input zero point, so it contributes nothing.
  std::vector<std::int8_t> zero_pixel_;
  std::optional<std::array<std::int8_t, 256>> table_;
};

}  // namespace yolo::runtime::kernels
