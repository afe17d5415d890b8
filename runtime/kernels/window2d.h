// SPDX-License-Identifier: Apache-2.0
#pragma once

// The 2-D window of a convolution or pooling: one type for the float and int8 convolutions, the
// poolings (runtime/xnn/) and our own int8 convolution (conv_qc8_vnni.h).

#include <cstddef>
#include <cstdint>

namespace yolo::runtime::kernels {

// Kernel, stride, dilation and padding, as ONNX's kernel_shape, strides, dilations and pads give
// them (pads: top, left, bottom, right).
struct Window2d {
  std::uint32_t kernel_height = 1;
  std::uint32_t kernel_width = 1;
  std::uint32_t stride_height = 1;
  std::uint32_t stride_width = 1;
  std::uint32_t dilation_height = 1;
  std::uint32_t dilation_width = 1;
  std::uint32_t pad_top = 0;
  std::uint32_t pad_left = 0;
  std::uint32_t pad_bottom = 0;
  std::uint32_t pad_right = 0;
};

// A k x k window with stride s and the same padding on every side, as most of YOLO's
// convolutions and poolings have.
inline Window2d square_window(std::uint32_t k, std::uint32_t s, std::uint32_t pad) {
  return {.kernel_height = k,
          .kernel_width = k,
          .stride_height = s,
          .stride_width = s,
          .pad_top = pad,
          .pad_left = pad,
          .pad_bottom = pad,
          .pad_right = pad};
}

// Output rows (columns) of `window` sliding over `input` rows (columns); throws
// std::invalid_argument when the padded input is smaller than the dilated kernel.
std::size_t window_output_height(const Window2d& window, std::size_t input);
std::size_t window_output_width(const Window2d& window, std::size_t input);

}  // namespace yolo::runtime::kernels
