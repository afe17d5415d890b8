// SPDX-License-Identifier: Apache-2.0
#pragma once

// Elementwise ops with numpy (ONNX multidirectional) broadcasting.

#include <cstdint>
#include <span>

#include "runtime/kernels/tensor_ref.h"

namespace yolo::runtime::kernels {

enum class BinaryOp : std::uint8_t {
  kAdd,
  kSub,
  kMul,
  kDiv,  // integer division truncates toward zero, as ONNX Runtime does
  kPow,
  kMin,
  kMax,
  kMod,   // Mod fmod=0: integers only, result takes the divisor's sign (Python %)
  kFmod,  // Mod fmod=1: C fmod, result takes the dividend's sign; floats and integers
  kEqual,
  kLess,
  kLessOrEqual,
  kGreater,
  kGreaterOrEqual,
  kAnd,
  kOr,
  kXor,
};

// The ONNX op name ("Add", "Mod"...), used in error messages.
const char* binary_op_name(BinaryOp op);

// numpy broadcasting of two shapes; throws naming op and both shapes when they are incompatible.
Shape broadcast_shape(std::span<const std::int64_t> a, std::span<const std::int64_t> b,
                      const char* op);
// Broadcast of any number of shapes (variadic Min/Max/Sum, Where); the empty list gives a scalar.
Shape broadcast_shapes(std::span<const Shape> shapes, const char* op);

// The output dtype of op on inputs of these dtypes, or throws if ONNX does not define it or we do
// not implement it:
// - arithmetic, Min, Max, Mod, Fmod: float32/int64/int32, both inputs the same type (Mod: ints);
//   Pow: base float32/int64/int32, exponent float32/int64/int32, result the base's type.
// - comparisons: float32/int64/int32 (Equal also bool), same types, result bool.
// - And/Or/Xor: bool only.
DType binary_result_dtype(BinaryOp op, DType a, DType b);

// out = a op b with broadcasting. out.shape must be broadcast_shape(a.shape, b.shape) and out.dtype
// binary_result_dtype(). out may alias a or b when that input already has the output's shape.
void binary(BinaryOp op, ConstTensorRef a, ConstTensorRef b, TensorRef out);

// Variadic Min / Max / Sum (kAdd; Mean is Sum then Div): folds the inputs left to right into out,
// whose shape is broadcast_shapes() of all inputs. At least one input.
void variadic(BinaryOp op, std::span<const ConstTensorRef> inputs, TensorRef out);

// Where(condition, x, y): condition bool, x and y the same dtype (any), all broadcast together.
// out.shape = broadcast_shapes({condition, x, y}).
void where(ConstTensorRef condition, ConstTensorRef x, ConstTensorRef y, TensorRef out);

}  // namespace yolo::runtime::kernels
