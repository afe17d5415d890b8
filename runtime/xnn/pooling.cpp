// SPDX-License-Identifier: Apache-2.0
#include "runtime/xnn/pooling.h"

#include "runtime/xnn/conv_layout.h"

#include <stdexcept>
#include <vector>

namespace yolo::runtime::xnn {

using detail::require;

namespace {

// Validates the shared pooling parameters and resolves dense (0) strides.
void check_pool(Pool2dParams& p, const std::string& name) {
  detail::check_window(p.window, name);
  require(p.channels >= 1, name, "channel count must be >= 1");
  require(p.output_min < p.output_max, name, "output clamp min must be below max");
  if (p.input_pixel_stride == 0) p.input_pixel_stride = p.channels;
  if (p.output_pixel_stride == 0) p.output_pixel_stride = p.channels;
  require(p.input_pixel_stride >= p.channels && p.output_pixel_stride >= p.channels, name,
          "pixel strides must be >= the channel count " + std::to_string(p.channels));
}

}  // namespace

MaxPool2dF32::MaxPool2dF32(const Pool2dParams& params, std::string name) : WindowOperator(params) {
  Pool2dParams& p = params_;
  check_pool(p, name);
  require(p.window.kernel_height * p.window.kernel_width > 1, name,
          "a 1x1 max pooling window is a strided copy; express it as a Slice");
  const bool dilated = p.window.dilation_height > 1 || p.window.dilation_width > 1;
  const bool padded =
      (p.window.pad_top | p.window.pad_left | p.window.pad_bottom | p.window.pad_right) != 0;
  require(!(dilated && padded), name,
          "MaxPool with both dilations and pads is not supported (XNNPACK 2022-02 reads pixels "
          "outside the window in that case); pad the input explicitly instead");
  op_ = create_operator(std::move(name), "max pooling create", [&](xnn_operator_t* out) {
    return xnn_create_max_pooling2d_nhwc_f32(
        p.window.pad_top, p.window.pad_right, p.window.pad_bottom, p.window.pad_left,
        p.window.kernel_height, p.window.kernel_width, p.window.stride_height,
        p.window.stride_width, p.window.dilation_height, p.window.dilation_width, p.channels,
        p.input_pixel_stride, p.output_pixel_stride, p.output_min, p.output_max, 0, out);
  });
}

void MaxPool2dF32::setup(size_t batch, size_t height, size_t width, const float* input,
                         float* output, pthreadpool_t pool) {
  setup_operator(xnn_setup_max_pooling2d_nhwc_f32, "max pooling setup", batch, height, width, input,
                 output, pool);
}

namespace {

Conv2dF32 averaging_convolution(const Pool2dParams& p, const std::string& name) {
  Conv2dParams c;
  c.window = p.window;  // AveragePool's dilations are 1
  c.groups = static_cast<uint32_t>(p.channels);
  c.input_channels = p.channels;
  c.output_channels = p.channels;
  c.input_pixel_stride = p.input_pixel_stride;
  c.output_pixel_stride = p.output_pixel_stride;
  c.output_min = p.output_min;
  c.output_max = p.output_max;
  const size_t window = size_t{p.window.kernel_height} * p.window.kernel_width;
  const std::vector<float> weights(p.channels * window, 1.0f / static_cast<float>(window));
  return Conv2dF32(c, weights, {}, name);
}

}  // namespace

AvgPool2dF32::AvgPool2dF32(const Pool2dParams& params, bool count_include_pad, std::string name)
    : WindowOperator(params) {
  Pool2dParams& p = params_;
  check_pool(p, name);
  require(p.window.dilation_height == 1 && p.window.dilation_width == 1, name,
          "AveragePool with dilations is not supported");
  require(p.window.kernel_height * p.window.kernel_width > 1, name,
          "a 1x1 average pooling window is a strided copy; express it as a Slice");
  const bool padded =
      (p.window.pad_top | p.window.pad_left | p.window.pad_bottom | p.window.pad_right) != 0;
  if (count_include_pad && padded) {
    conv_.emplace(averaging_convolution(p, name));
    op_ = Operator(nullptr, std::move(name));
    return;
  }
  op_ = create_operator(std::move(name), "average pooling create", [&](xnn_operator_t* out) {
    return xnn_create_average_pooling2d_nhwc_f32(
        p.window.pad_top, p.window.pad_right, p.window.pad_bottom, p.window.pad_left,
        p.window.kernel_height, p.window.kernel_width, p.window.stride_height,
        p.window.stride_width, p.channels, p.input_pixel_stride, p.output_pixel_stride,
        p.output_min, p.output_max, 0, out);
  });
}

void AvgPool2dF32::setup(size_t batch, size_t height, size_t width, const float* input,
                         float* output, pthreadpool_t pool) {
  if (conv_) {  // the same window, checked under the same name
    conv_->setup(batch, height, width, input, output, pool);
    return;
  }
  setup_operator(xnn_setup_average_pooling2d_nhwc_f32, "average pooling setup", batch, height,
                 width, input, output, pool);
}

void AvgPool2dF32::run(pthreadpool_t pool) const {
  if (conv_) {
    conv_->run(pool);
  } else {
    op_.run(pool);
  }
}

GlobalAvgPoolF32::GlobalAvgPoolF32(size_t channels, size_t input_stride, size_t output_stride,
                                   std::string name) {
  require(channels >= 1, name, "channel count must be >= 1");
  if (input_stride == 0) input_stride = channels;
  if (output_stride == 0) output_stride = channels;
  require(input_stride >= channels && output_stride >= channels, name,
          "strides must be >= the channel count " + std::to_string(channels));
  op_ = create_operator(std::move(name), "global average pooling create", [&](xnn_operator_t* out) {
    return xnn_create_global_average_pooling_nwc_f32(
        channels, input_stride, output_stride, -std::numeric_limits<float>::infinity(),
        std::numeric_limits<float>::infinity(), 0, out);
  });
}

void GlobalAvgPoolF32::setup(size_t batch, size_t pixels, const float* input, float* output,
                             pthreadpool_t pool) {
  require(pixels >= 1, op_.name(), "global average pooling of an empty image");
  check(xnn_setup_global_average_pooling_nwc_f32(op_.get(), batch, pixels, input, output, pool),
        "global average pooling setup", op_.name());
}

}  // namespace yolo::runtime::xnn
