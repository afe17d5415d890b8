// SPDX-License-Identifier: Apache-2.0
#pragma once

// Ops that only compute a shape (the data is unchanged or aliased: Reshape, Flatten, Squeeze,
// Unsqueeze, use copy() from tensor_ref.h if a copy is needed) and small generators (Shape,
// ConstantOfShape, Range).

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "runtime/kernels/tensor_ref.h"

namespace yolo::runtime::kernels {

// Reshape: 0 copies the input's dimension (unless allowzero, where 0 is a real 0), one -1 is
// inferred; throws when the element counts differ or allowzero is mixed with -1 and 0.
Shape reshape_shape(std::span<const std::int64_t> in, std::span<const std::int64_t> requested,
                    bool allowzero);

// Flatten at axis in [-rank, rank]: [prod(in[:axis]), prod(in[axis:])].
Shape flatten_shape(std::span<const std::int64_t> in, std::int64_t axis);

// Squeeze: removes the listed axes (each must have size 1), or all size-1 axes when axes is empty.
Shape squeeze_shape(std::span<const std::int64_t> in, std::span<const std::int64_t> axes);

// Unsqueeze: inserts size-1 axes at the listed positions of the output (range [-out_rank,
// out_rank), no duplicates), for the opset < 13 attribute and the 13+ input alike.
Shape unsqueeze_shape(std::span<const std::int64_t> in, std::span<const std::int64_t> axes);

// Shape op (opset 15 start/end, clamped like Slice): the dims of `in` in [start, end).
std::vector<std::int64_t> shape_values(std::span<const std::int64_t> in,
                                       std::optional<std::int64_t> start,
                                       std::optional<std::int64_t> end);

// ConstantOfShape: validates the requested dims (non-negative) and returns them as a shape.
Shape constant_of_shape_shape(std::span<const std::int64_t> dims);
// Fills out with the single element of value (same dtype; ConstantOfShape's default is a float
// 0, which the caller passes as a one-element float32 tensor).
void fill(ConstTensorRef value, TensorRef out);

// Range(start, limit, delta): scalars of one dtype (float32, int64 or int32).
// Element count max(ceil((limit - start) / delta), 0); delta 0 throws.
Shape range_shape(ConstTensorRef start, ConstTensorRef limit, ConstTensorRef delta);
// out[i] = start + i * delta.
void range(ConstTensorRef start, ConstTensorRef delta, TensorRef out);

}  // namespace yolo::runtime::kernels
