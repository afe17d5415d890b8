// SPDX-License-Identifier: Apache-2.0
#include "runtime/kernels/window2d.h"

#include <stdexcept>
#include <string>

namespace yolo::runtime::kernels {

namespace {

std::size_t output_size(std::size_t input, std::uint32_t kernel, std::uint32_t stride,
                        std::uint32_t dilation, std::uint32_t pad_before, std::uint32_t pad_after) {
  const std::size_t padded = input + pad_before + pad_after;
  const std::size_t effective_kernel = std::size_t{dilation} * (kernel - 1) + 1;
  if (padded < effective_kernel) {
    throw std::invalid_argument("input of size " + std::to_string(input) + " with padding " +
                                std::to_string(pad_before) + "+" + std::to_string(pad_after) +
                                " is smaller than the (dilated) kernel " +
                                std::to_string(effective_kernel));
  }
  return (padded - effective_kernel) / stride + 1;
}

}  // namespace

std::size_t window_output_height(const Window2d& window, std::size_t input) {
  return output_size(input, window.kernel_height, window.stride_height, window.dilation_height,
                     window.pad_top, window.pad_bottom);
}

std::size_t window_output_width(const Window2d& window, std::size_t input) {
  return output_size(input, window.kernel_width, window.stride_width, window.dilation_width,
                     window.pad_left, window.pad_right);
}

}  // namespace yolo::runtime::kernels
