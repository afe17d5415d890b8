// SPDX-License-Identifier: Apache-2.0
#pragma once

// Conv and ConvTranspose on XNNPACK, NHWC, built from ONNX attributes and ONNX weight layouts.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>

#include "runtime/kernels/window2d.h"
#include "runtime/xnn/xnn_operator.h"

namespace yolo::runtime::xnn {

// ONNX Conv attributes plus the NHWC memory layout. Pixel strides are in elements between
// consecutive pixels; 0 means "dense" (= the channel count). A stride wider than the channel count
// reads from / writes into a channel slice of a wider tensor, which makes Concat and Split free.
struct Conv2dParams {
  kernels::Window2d window;
  uint32_t groups = 1;
  size_t input_channels = 0;   // total, all groups
  size_t output_channels = 0;  // total, all groups
  size_t input_pixel_stride = 0;
  size_t output_pixel_stride = 0;
  // Clamp fused into the output: Relu is {0, +inf}, Clip is {min, max}.
  float output_min = -std::numeric_limits<float>::infinity();
  float output_max = std::numeric_limits<float>::infinity();
};

// 2-D convolution, NHWC float. Weights are packed into XNNPACK's layout once, at construction:
// groups == input_channels (depthwise, any channel multiplier) takes XNNPACK's depthwise path,
// everything else its GEMM/IGEMM paths (1x1 stride 1 without padding is a plain GEMM).
class Conv2dF32 {
 public:
  // `weights` in ONNX OIHW order: [output_channels][input_channels / groups][kH][kW]. `bias` has
  // output_channels values, or is empty for none. `name` (the ONNX node) is used in errors.
  // Throws std::invalid_argument for inconsistent parameters or sizes, std::runtime_error when
  // XNNPACK rejects them.
  Conv2dF32(const Conv2dParams& params, std::span<const float> weights, std::span<const float> bias,
            std::string name);

  // Binds shapes and pointers. `input` is [batch][height][width][input_pixel_stride], `output`
  // [batch][output_height][output_width][output_pixel_stride]; only the first input_channels /
  // output_channels of each pixel are read / written. Call again whenever the size, a pointer or
  // the thread pool changes (cheap when only pointers change).
  void setup(size_t batch, size_t height, size_t width, const float* input, float* output,
             pthreadpool_t pool);
  void run(pthreadpool_t pool) const { op_.run(pool); }

  size_t output_height(size_t input_height) const;
  size_t output_width(size_t input_width) const;
  const Conv2dParams& params() const { return params_; }

 private:
  Conv2dParams params_;
  Operator op_;
};

// ONNX ConvTranspose attributes plus the NHWC memory layout (pixel strides as in Conv2dParams).
struct Deconv2dParams {
  // Its pads are ONNX `pads`: rows/columns cropped from the full transposed-convolution output
  // (whose size is Deconv2dF32's, not window_output_height's).
  kernels::Window2d window;
  // ONNX `output_padding` (extra rows/columns at the bottom/right); must be < the stride.
  uint32_t output_padding_height = 0;
  uint32_t output_padding_width = 0;
  uint32_t groups = 1;
  size_t input_channels = 0;
  size_t output_channels = 0;
  size_t input_pixel_stride = 0;
  size_t output_pixel_stride = 0;
  float output_min = -std::numeric_limits<float>::infinity();
  float output_max = std::numeric_limits<float>::infinity();
};

// 2-D transposed convolution, NHWC float.
// Output size: stride * (in - 1) + output_padding + dilation * (kernel - 1) + 1 - pads.
// ONNX `output_shape` is the engine's job: it converts it to pads/output_padding.
class Deconv2dF32 {
 public:
  // `weights` in ONNX order: [input_channels][output_channels / groups][kH][kW].
  Deconv2dF32(const Deconv2dParams& params, std::span<const float> weights,
              std::span<const float> bias, std::string name);

  void setup(size_t batch, size_t height, size_t width, const float* input, float* output,
             pthreadpool_t pool);
  void run(pthreadpool_t pool) const { op_.run(pool); }

  size_t output_height(size_t input_height) const;
  size_t output_width(size_t input_width) const;
  const Deconv2dParams& params() const { return params_; }

 private:
  Deconv2dParams params_;
  Operator op_;
};

}  // namespace yolo::runtime::xnn
