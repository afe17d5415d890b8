// SPDX-License-Identifier: Apache-2.0
#pragma once

// Elementwise and row-wise ops over [rows][channels] with row strides, on XNNPACK. A row is a
// pixel in NHWC (channels = C) or any run of contiguous values; strides are in elements between
// consecutive rows and must be >= channels, so a channel slice of a wider tensor is addressed by
// offsetting the pointer and passing the wide tensor's channel count as stride.

#include <cstddef>
#include <cstdint>
#include <string>

#include "runtime/xnn/xnn_operator.h"

namespace yolo::runtime::xnn {

// Float unary ops; in-place (input == output with equal strides) is allowed.
class UnaryF32 {
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

  void setup(size_t rows, const float* input, float* output, pthreadpool_t pool);
  void run(pthreadpool_t pool) const { op_.run(pool); }

 private:
  using Setup = xnn_status (*)(xnn_operator_t, size_t, const float*, float*, pthreadpool_t);
  UnaryF32(Operator op, Setup setup) : op_(std::move(op)), setup_(setup) {}

  Operator op_;
  Setup setup_;
};

// Copies `channels` 32-bit values per row between strided layouts: materialises a channel slice
// (Split, Slice along channels) or gathers one into a slice of a wider tensor. Any 32-bit type.
class CopyX32 {
 public:
  CopyX32(size_t channels, size_t input_stride, size_t output_stride, std::string name);

  void setup(size_t rows, const void* input, void* output, pthreadpool_t pool);
  void run(pthreadpool_t pool) const { op_.run(pool); }

 private:
  Operator op_;
};

// float -> int8: q = clamp(round(x / scale) + zero_point, -128, 127).
class ConvertF32ToQS8 {
 public:
  ConvertF32ToQS8(size_t channels, size_t input_stride, size_t output_stride, QuantParams output,
                  std::string name);

  void setup(size_t rows, const float* input, int8_t* output, pthreadpool_t pool);
  void run(pthreadpool_t pool) const { op_.run(pool); }

 private:
  Operator op_;
};

// int8 -> float: x = scale * (q - zero_point).
class ConvertQS8ToF32 {
 public:
  ConvertQS8ToF32(size_t channels, size_t input_stride, size_t output_stride, QuantParams input,
                  std::string name);

  void setup(size_t rows, const int8_t* input, float* output, pthreadpool_t pool);
  void run(pthreadpool_t pool) const { op_.run(pool); }

 private:
  Operator op_;
};

}  // namespace yolo::runtime::xnn
