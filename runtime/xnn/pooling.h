// SPDX-License-Identifier: Apache-2.0
#pragma once

// MaxPool, AveragePool and GlobalAveragePool on XNNPACK, NHWC float with pixel strides
// (0 = dense, as in Conv2dParams).

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "runtime/xnn/convolution.h"
#include "runtime/xnn/xnn_operator.h"

namespace yolo::runtime::xnn {

// ONNX MaxPool / AveragePool attributes. ONNX ceil_mode is the engine's to resolve: with static
// shapes it becomes extra bottom/right padding (padding never wins a max, and is not counted in
// an average with count_include_pad = 0). AveragePool with count_include_pad = 1 would count that
// extra padding, which ONNX Runtime does not: the engine must reject that combination.
struct Pool2dParams {
  // Dilations are for MaxPool only; AveragePool requires 1.
  kernels::Window2d window;
  size_t channels = 0;
  size_t input_pixel_stride = 0;
  size_t output_pixel_stride = 0;
  float output_min = -std::numeric_limits<float>::infinity();
  float output_max = std::numeric_limits<float>::infinity();
};

// Max pooling; padded positions are ignored (ONNX semantics). Rejected with
// std::invalid_argument: a 1x1 window (a strided copy, not a pooling), and dilations > 1 together
// with padding, which XNNPACK 2022-02 gets wrong (found by this layer's tests).
class MaxPool2dF32 : public WindowOperator<Pool2dParams> {
 public:
  MaxPool2dF32(const Pool2dParams& params, std::string name);

  void setup(size_t batch, size_t height, size_t width, const float* input, float* output,
             pthreadpool_t pool);
};

// Average pooling with both ONNX count_include_pad semantics:
// - false (the ONNX default): each output divides by the number of input pixels in its window;
//   runs on XNNPACK's average pooling, which excludes padding.
// - true: divides by kernel_height * kernel_width; with padding this runs as a depthwise
//   convolution with constant weights 1 / (kH * kW), whose zero padding is exactly that.
// Dilation must be 1, and a 1x1 window (a strided copy, not a pooling) is rejected
// (std::invalid_argument for both).
class AvgPool2dF32 : public WindowOperator<Pool2dParams> {
 public:
  AvgPool2dF32(const Pool2dParams& params, bool count_include_pad, std::string name);

  void setup(size_t batch, size_t height, size_t width, const float* input, float* output,
             pthreadpool_t pool);
  // Runs conv_ where it is set, else the XNNPACK average pooling.
  void run(pthreadpool_t pool) const;

 private:
  std::optional<Conv2dF32> conv_;  // count_include_pad with padding
};

// GlobalAveragePool: [batch][pixels][channels] (pixels = H * W, input_stride between pixels)
// -> [batch][channels] (output_stride between batches).
class GlobalAvgPoolF32 {
 public:
  GlobalAvgPoolF32(size_t channels, size_t input_stride, size_t output_stride, std::string name);

  void setup(size_t batch, size_t pixels, const float* input, float* output, pthreadpool_t pool);
  void run(pthreadpool_t pool) const { op_.run(pool); }

 private:
  Operator op_;
};

}  // namespace yolo::runtime::xnn
