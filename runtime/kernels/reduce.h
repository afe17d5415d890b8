// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "runtime/kernels/tensor_ref.h"

namespace yolo::runtime::kernels {

enum class ReduceOp : std::uint8_t { kMax, kMin, kSum, kMean, kProd };

// The ONNX op name ("ReduceMax"...).
const char* reduce_op_name(ReduceOp op);

// The axes to reduce, normalized and sorted: `axes` as given (attribute, or the opset 18 input),
// or when empty all axes, except that noop_with_empty_axes makes it none (the op copies).
std::vector<std::int64_t> reduce_axes(ReduceOp op, std::int64_t rank,
                                      std::span<const std::int64_t> axes,
                                      bool noop_with_empty_axes);

// The output shape for normalized axes: reduced dims become 1 (keepdims) or are dropped.
Shape reduce_shape(std::span<const std::int64_t> in, std::span<const std::int64_t> normalized_axes,
                   bool keepdims);

// Reduces in over normalized axes (from reduce_axes) into out (either keepdims shape; only the
// element count is checked). float32, int64, int32. Over an empty set Max gives -inf (integers:
// the lowest value), Min +inf (the highest), Sum 0, Mean NaN (float) like numpy, Prod 1.
void reduce(ReduceOp op, ConstTensorRef in, std::span<const std::int64_t> normalized_axes,
            TensorRef out);

enum class ArgOp : std::uint8_t { kArgMax, kArgMin };

// ArgMax/ArgMin's int64 output shape.
Shape arg_reduce_shape(std::span<const std::int64_t> in, std::int64_t axis, bool keepdims);
// Index of the first (or, with select_last_index, the last) extreme along axis. float32, int64,
// int32 input; throws on an empty axis.
void arg_reduce(ArgOp op, ConstTensorRef in, std::int64_t axis, bool select_last_index,
                TensorRef out);

}  // namespace yolo::runtime::kernels
