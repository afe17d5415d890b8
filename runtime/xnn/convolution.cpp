// SPDX-License-Identifier: Apache-2.0
#include "runtime/xnn/convolution.h"

#include "runtime/xnn/conv_layout.h"

#include <stdexcept>
#include <vector>

namespace yolo::runtime::xnn {

using detail::check_conv_params;
using detail::require;

namespace {

// XNNPACK's convolution and deconvolution create calls take the same arguments: the window, the
// groups and their channels, the pixel strides, packed weights, bias, clamp and flags.
template <typename Create, typename Params>
xnn_status create_conv(Create create, const Params& p, const std::vector<float>& packed,
                       std::span<const float> bias, uint32_t flags, xnn_operator_t* out) {
  return create(p.window.pad_top, p.window.pad_right, p.window.pad_bottom, p.window.pad_left,
                p.window.kernel_height, p.window.kernel_width, p.window.stride_height,
                p.window.stride_width, p.window.dilation_height, p.window.dilation_width, p.groups,
                p.input_channels / p.groups, p.output_channels / p.groups, p.input_pixel_stride,
                p.output_pixel_stride, packed.data(), bias.empty() ? nullptr : bias.data(),
                p.output_min, p.output_max, flags, out);
}

}  // namespace

Conv2dF32::Conv2dF32(const Conv2dParams& params, std::span<const float> weights,
                     std::span<const float> bias, std::string name)
    : WindowOperator(params) {
  Conv2dParams& p = params_;
  check_conv_params(p, weights.size(), bias.size(), name);
  const uint32_t flags = detail::is_depthwise(p) ? XNN_FLAG_DEPTHWISE_CONVOLUTION : 0;
  const std::vector<float> packed = detail::pack_conv_weights(p, weights);
  op_ = create_operator(std::move(name), "convolution create", [&](xnn_operator_t* out) {
    return create_conv(xnn_create_convolution2d_nhwc_f32, p, packed, bias, flags, out);
  });
}

void Conv2dF32::setup(size_t batch, size_t height, size_t width, const float* input, float* output,
                      pthreadpool_t pool) {
  setup_operator(xnn_setup_convolution2d_nhwc_f32, "convolution setup", batch, height, width, input,
                 output, pool);
}

Deconv2dF32::Deconv2dF32(const Deconv2dParams& params, std::span<const float> weights,
                         std::span<const float> bias, std::string name)
    : WindowOperator(params) {
  Deconv2dParams& p = params_;
  check_conv_params(p, weights.size(), bias.size(), name);
  require(p.output_padding_height < p.window.stride_height &&
              p.output_padding_width < p.window.stride_width,
          name, "output_padding must be smaller than the stride");
  const size_t kernel_size = size_t{p.window.kernel_height} * p.window.kernel_width;
  const size_t group_in = p.input_channels / p.groups;
  const size_t group_out = p.output_channels / p.groups;

  // ONNX [groups * in][out][kH][kW] -> XNNPACK [groups][out][kH][kW][in].
  std::vector<float> packed(weights.size());
  for (size_t g = 0; g < p.groups; ++g) {
    for (size_t i = 0; i < group_in; ++i) {
      for (size_t o = 0; o < group_out; ++o) {
        for (size_t k = 0; k < kernel_size; ++k) {
          packed[((g * group_out + o) * kernel_size + k) * group_in + i] =
              weights[((g * group_in + i) * group_out + o) * kernel_size + k];
        }
      }
    }
  }
  op_ = create_operator(std::move(name), "deconvolution create", [&](xnn_operator_t* out) {
    return create_conv(xnn_create_deconvolution2d_nhwc_f32, p, packed, bias, 0, out);
  });
}

namespace {

size_t deconv_output_size(size_t input, uint32_t kernel, uint32_t stride, uint32_t dilation,
                          uint32_t pad_before, uint32_t pad_after, uint32_t output_padding) {
  const size_t full =
      size_t{stride} * (input - 1) + output_padding + size_t{dilation} * (kernel - 1) + 1;
  if (input == 0 || full <= size_t{pad_before} + pad_after) {
    throw std::invalid_argument("transposed convolution of an input of size " +
                                std::to_string(input) + " leaves no output after pads " +
                                std::to_string(pad_before) + "+" + std::to_string(pad_after));
  }
  return full - pad_before - pad_after;
}

}  // namespace

size_t output_size(const Deconv2dParams& p, size_t input, bool vertical) {
  return vertical ? deconv_output_size(input, p.window.kernel_height, p.window.stride_height,
                                       p.window.dilation_height, p.window.pad_top,
                                       p.window.pad_bottom, p.output_padding_height)
                  : deconv_output_size(input, p.window.kernel_width, p.window.stride_width,
                                       p.window.dilation_width, p.window.pad_left,
                                       p.window.pad_right, p.output_padding_width);
}

void Deconv2dF32::setup(size_t batch, size_t height, size_t width, const float* input,
                        float* output, pthreadpool_t pool) {
  setup_operator(xnn_setup_deconvolution2d_nhwc_f32, "deconvolution setup", batch, height, width,
                 params_.output_padding_height, params_.output_padding_width, input, output, pool);
}

}  // namespace yolo::runtime::xnn
