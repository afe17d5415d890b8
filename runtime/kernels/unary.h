// SPDX-License-Identifier: Apache-2.0
#pragma once

// Elementwise single-input ops and Cast. Input and output have the same shape; out may alias in.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>

#include "runtime/kernels/tensor_ref.h"

namespace yolo::runtime::kernels {

enum class UnaryOp : std::uint8_t {
  kSigmoid,
  kRelu,  // also int64/int32
  kHardSwish,
  kExp,
  kLog,
  kSqrt,
  kTanh,
  kErf,
  kFloor,
  kCeil,
  kReciprocal,
  kNeg,   // also int64/int32
  kAbs,   // also int64/int32
  kSign,  // also int64/int32
  kNot,   // bool only
};

// The ONNX op name ("Sigmoid"...), used in error messages.
const char* unary_op_name(UnaryOp op);

// Throws unless op is implemented for dtype (float32 for all but the ones marked above).
void check_unary_dtype(UnaryOp op, DType dtype);

// out = op(in); same dtype and shape.
void unary(UnaryOp op, ConstTensorRef in, TensorRef out);

// The float function of op (any but kNot) on one value, as unary() computes it; the int8 lowering
// makes its tables with it.
std::function<float(float)> unary_function(UnaryOp op);

// One value of LeakyRelu and of HardSigmoid (HardSwish is x * hard_sigmoid_of(x, 1/6, 1/2)).
inline float leaky_relu_of(float x, float alpha) {
  return x >= 0.0F ? x : alpha * x;
}
inline float hard_sigmoid_of(float x, float alpha, float beta) {
  return std::max(0.0F, std::min(1.0F, alpha * x + beta));
}

// LeakyRelu: leaky_relu_of each value (float32).
void leaky_relu(ConstTensorRef in, float alpha, TensorRef out);
// HardSigmoid: hard_sigmoid_of each value (float32).
void hard_sigmoid(ConstTensorRef in, float alpha, float beta, TensorRef out);
// Clip to [min, max]; an absent bound does not clip (float32, int64, int32). ONNX leaves
// min > max undefined; like ONNX Runtime, the result is then max everywhere.
void clip(ConstTensorRef in, std::optional<double> min, std::optional<double> max, TensorRef out);

// Cast in to out.dtype (any DType to any). float -> integer truncates toward zero like numpy and
// ONNX Runtime, saturating beyond int64's range (NaN gives 0) and then wrapping to narrower types
// like numpy's astype; anything -> bool is (x != 0); bool -> number is 0 or 1.
void cast(ConstTensorRef in, TensorRef out);

}  // namespace yolo::runtime::kernels
