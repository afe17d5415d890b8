// SPDX-License-Identifier: Apache-2.0
#pragma once

// Conv and ConvTranspose on XNNPACK, NHWC, built from ONNX attributes and ONNX weight layouts.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

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

// Output rows (vertical) or columns of a convolution or pooling over `input` rows or columns;
// std::invalid_argument when the padded input is smaller than the dilated kernel.
template <typename Params>
size_t output_size(const Params& params, size_t input, bool vertical) {
  return vertical ? kernels::window_output_height(params.window, input)
                  : kernels::window_output_width(params.window, input);
}
// A transposed convolution's: stride * (in - 1) + output_padding + dilation * (kernel - 1) + 1 -
// pads; std::invalid_argument when that leaves nothing.
size_t output_size(const Deconv2dParams& params, size_t input, bool vertical);

// What the windowed NHWC operators (convolutions, poolings) share: their parameters, the XNNPACK
// operator, the output size and a setup that checks the input size first.
template <typename Params>
class WindowOperator {
 public:
  void run(pthreadpool_t pool) const { op_.run(pool); }

  // Throw std::invalid_argument naming the operator when an input that size leaves no output.
  size_t output_height(size_t input_height) const { return output(input_height, true); }
  size_t output_width(size_t input_width) const { return output(input_width, false); }
  const Params& params() const { return params_; }

 protected:
  explicit WindowOperator(const Params& params) : params_(params) {}

  // Binds shapes and pointers through xnn_setup(op, batch, height, width, rest...) once the
  // window fits height x width. Call again whenever the size, a pointer or the thread pool
  // changes (cheap when only pointers change).
  template <typename Setup, typename... Rest>
  void setup_operator(Setup xnn_setup, std::string_view what, size_t batch, size_t height,
                      size_t width, Rest... rest) {
    output_height(height);
    output_width(width);
    check(xnn_setup(op_.get(), batch, height, width, rest...), what, op_.name());
  }

  Params params_;
  Operator op_;

 private:
  size_t output(size_t input, bool vertical) const {
    try {
      return output_size(params_, input, vertical);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("'" + op_.name() + "': " + e.what());
    }
  }
};

// 2-D convolution, NHWC float. Weights are packed into XNNPACK's layout once, at construction:
// groups == input_channels (depthwise, any channel multiplier) takes XNNPACK's depthwise path,
// everything else its GEMM/IGEMM paths (1x1 stride 1 without padding is a plain GEMM).
class Conv2dF32 : public WindowOperator<Conv2dParams> {
 public:
  // `weights` in ONNX OIHW order: [output_channels][input_channels / groups][kH][kW]. `bias` has
  // output_channels values, or is empty for none. `name` (the ONNX node) is used in errors.
  // Throws std::invalid_argument for inconsistent parameters or sizes, std::runtime_error when
  // XNNPACK rejects them.
  Conv2dF32(const Conv2dParams& params, std::span<const float> weights, std::span<const float> bias,
            std::string name);

  // `input` is [batch][height][width][input_pixel_stride], `output`
  // [batch][output_height][output_width][output_pixel_stride]; only the first input_channels /
  // output_channels of each pixel are read / written.
  void setup(size_t batch, size_t height, size_t width, const float* input, float* output,
             pthreadpool_t pool);
};

// 2-D transposed convolution, NHWC float (output size: output_size above).
// ONNX `output_shape` is the engine's job: it converts it to pads/output_padding.
class Deconv2dF32 : public WindowOperator<Deconv2dParams> {
 public:
  // `weights` in ONNX order: [input_channels][output_channels / groups][kH][kW].
  Deconv2dF32(const Deconv2dParams& params, std::span<const float> weights,
              std::span<const float> bias, std::string name);

  void setup(size_t batch, size_t height, size_t width, const float* input, float* output,
             pthreadpool_t pool);
};

}  // namespace yolo::runtime::xnn
