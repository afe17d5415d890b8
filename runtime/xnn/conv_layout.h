// SPDX-License-Identifier: Apache-2.0
#pragma once

// Internal to runtime/xnn: parameter checks of the windowed operators and the ONNX -> XNNPACK
// weight layout shared by the float and int8 convolutions.

#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/xnn/convolution.h"

namespace yolo::runtime::xnn::detail {

inline std::string where(const std::string& name) {
  return "'" + name + "': ";
}

inline void require(bool ok, const std::string& name, const std::string& message) {
  if (!ok) throw std::invalid_argument(where(name) + message);
}

// 0 means dense; otherwise a stride must leave room for every channel.
inline size_t resolve_stride(size_t stride, size_t channels, const std::string& name,
                             const char* what) {
  if (stride == 0) return channels;
  require(stride >= channels, name,
          std::string(what) + " pixel stride " + std::to_string(stride) +
              " is smaller than its channel count " + std::to_string(channels));
  return stride;
}

// Kernel, strides and dilations of at least 1, as every windowed operator needs.
inline void check_window(const kernels::Window2d& window, const std::string& name) {
  require(window.kernel_height >= 1 && window.kernel_width >= 1, name, "kernel size must be >= 1");
  require(window.stride_height >= 1 && window.stride_width >= 1, name, "strides must be >= 1");
  require(window.dilation_height >= 1 && window.dilation_width >= 1, name,
          "dilations must be >= 1");
}

// Checks of Conv and ConvTranspose parameters shared by the float and int8 wrappers; resolves
// dense (0) pixel strides.
// Conv's OIHW and ConvTranspose's IOHW weights both hold in * out / groups * kH * kW values.
template <typename Params>
void check_conv_params(Params& p, size_t weights_size, size_t bias_size, const std::string& name) {
  check_window(p.window, name);
  require(p.groups >= 1, name, "group must be >= 1");
  require(p.input_channels >= 1 && p.output_channels >= 1, name, "channel counts must be >= 1");
  require(p.input_channels % p.groups == 0 && p.output_channels % p.groups == 0, name,
          "group " + std::to_string(p.groups) + " does not divide the input (" +
              std::to_string(p.input_channels) + ") and output (" +
              std::to_string(p.output_channels) + ") channels");
  const size_t expected = p.input_channels / p.groups * p.output_channels * p.window.kernel_height *
                          p.window.kernel_width;
  require(weights_size == expected, name,
          "weights hold " + std::to_string(weights_size) + " values, expected " +
              std::to_string(expected));
  require(bias_size == 0 || bias_size == p.output_channels, name,
          "bias holds " + std::to_string(bias_size) + " values, expected " +
              std::to_string(p.output_channels) + " or none");
  require(p.output_min < p.output_max, name, "output clamp min must be below max");
  p.input_pixel_stride = resolve_stride(p.input_pixel_stride, p.input_channels, name, "input");
  p.output_pixel_stride = resolve_stride(p.output_pixel_stride, p.output_channels, name, "output");
}

// Depthwise: one input channel per group (any channel multiplier), XNNPACK's dwconv path.
inline bool is_depthwise(const Conv2dParams& p) {
  return p.groups > 1 && p.input_channels == p.groups;
}

// ONNX OIHW -> XNNPACK: depthwise takes [kH][kW][groups * multiplier] with
// XNN_FLAG_DEPTHWISE_CONVOLUTION, everything else [groups][out][kH][kW][in].
template <typename T>
std::vector<T> pack_conv_weights(const Conv2dParams& p, std::span<const T> weights) {
  const size_t kernel_size = size_t{p.window.kernel_height} * p.window.kernel_width;
  const size_t group_in = p.input_channels / p.groups;
  std::vector<T> packed(weights.size());
  if (is_depthwise(p)) {
    for (size_t oc = 0; oc < p.output_channels; ++oc) {
      for (size_t k = 0; k < kernel_size; ++k) {
        packed[k * p.output_channels + oc] = weights[oc * kernel_size + k];
      }
    }
  } else {
    for (size_t oc = 0; oc < p.output_channels; ++oc) {
      for (size_t ic = 0; ic < group_in; ++ic) {
        for (size_t k = 0; k < kernel_size; ++k) {
          packed[(oc * kernel_size + k) * group_in + ic] =
              weights[(oc * group_in + ic) * kernel_size + k];
        }
      }
    }
  }
  return packed;
}

}  // namespace yolo::runtime::xnn::detail
