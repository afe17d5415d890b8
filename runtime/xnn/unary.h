// SPDX-License-Identifier: Apache-2.0
#pragma once

// Elementwise and row-wise ops over [rows][channels] with row strides, on XNNPACK. A row is a
// pixel in NHWC (channels = C) or any run of contiguous values; strides are in elements between
// consecutive rows and must be >= channels, so a channel slice of a wider tensor is addressed by
// offsetting the pointer and passing the wide tensor's channel count as stride.

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "runtime/xnn/xnn_operator.h"

namespace yolo::runtime::xnn {

namespace detail {
// std::invalid_argument naming the operator unless 1 <= channels <= both strides.
void check_row_strides(size_t channels, size_t input_stride, size_t output_stride,
                       const std::string& name);
}  // namespace detail

// What the row-wise operators share: the strides check at creation, and a setup per row count
// through their xnn_setup_*_nc_* function.
template <typename In, typename Out>
class RowOperator {
 public:
  void setup(size_t rows, const In* input, Out* output, pthreadpool_t pool) {
    check(setup_(op_.get(), rows, input, output, pool), label_ + " setup", op_.name());
  }
  void run(pthreadpool_t pool) const { op_.run(pool); }

 protected:
  using Setup = xnn_status (*)(xnn_operator_t, size_t, const In*, Out*, pthreadpool_t);

  // `create` calls xnn_create_*_nc_* with these sizes; `label` names the operator in errors.
  template <typename Create>
  RowOperator(size_t channels, size_t input_stride, size_t output_stride, std::string name,
              std::string label, Create&& create, Setup setup)
      : label_(std::move(label)), setup_(setup) {
    detail::check_row_strides(channels, input_stride, output_stride, name);
    op_ = create_operator(std::move(name), label_ + " create", create);
  }

 private:
  std::string label_;
  Setup setup_;
  Operator op_;
};

// Float unary ops; in-place (input == output with equal strides) is allowed.
class UnaryF32 : public RowOperator<float, float> {
 public:
  static UnaryF32 sigmoid(size_t channels, size_t input_stride, size_t output_stride,
                          std::string name);
  // Relu is clamp(0, +inf); Clip is clamp(min, max).
  static UnaryF32 clamp(size_t channels, size_t input_stride, size_t output_stride, float min,
                        float max, std::string name);
  static UnaryF32 leaky_relu(size_t channels, size_t input_stride, size_t output_stride,
                             float negative_slope, std::string name);
  // x * relu6(x + 3) / 6 (ONNX HardSwish).
  static UnaryF32 hardswish(size_t channels, size_t input_stride, size_t output_stride,
                            std::string name);
  // Softmax over each row's `channels` values (ONNX Softmax over the last axis).
  static UnaryF32 softmax(size_t channels, size_t input_stride, size_t output_stride,
                          std::string name);
  static UnaryF32 abs(size_t channels, size_t input_stride, size_t output_stride, std::string name);
  static UnaryF32 negate(size_t channels, size_t input_stride, size_t output_stride,
                         std::string name);
  static UnaryF32 square_root(size_t channels, size_t input_stride, size_t output_stride,
                              std::string name);
  static UnaryF32 floor(size_t channels, size_t input_stride, size_t output_stride,
                        std::string name);
  static UnaryF32 ceiling(size_t channels, size_t input_stride, size_t output_stride,
                          std::string name);

 private:
  using RowOperator::RowOperator;
};

// Copies `channels` 32-bit values per row between strided layouts: materialises a channel slice
// (Split, Slice along channels) or gathers one into a slice of a wider tensor. Any 32-bit type.
class CopyX32 : public RowOperator<void, void> {
 public:
  CopyX32(size_t channels, size_t input_stride, size_t output_stride, std::string name);
};

// float -> int8: q = clamp(round(x / scale) + zero_point, -128, 127).
class ConvertF32ToQS8 : public RowOperator<float, int8_t> {
 public:
  ConvertF32ToQS8(size_t channels, size_t input_stride, size_t output_stride, QuantParams output,
                  std::string name);
};

// int8 -> float: x = scale * (q - zero_point).
class ConvertQS8ToF32 : public RowOperator<int8_t, float> {
 public:
  ConvertQS8ToF32(size_t channels, size_t input_stride, size_t output_stride, QuantParams input,
                  std::string name);
};

}  // namespace yolo::runtime::xnn
