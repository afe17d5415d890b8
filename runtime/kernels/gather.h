// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <span>

#include "runtime/kernels/tensor_ref.h"

namespace yolo::runtime::kernels {

// Gather: data.shape[:axis] + indices.shape + data.shape[axis+1:].
Shape gather_shape(std::span<const std::int64_t> data, std::span<const std::int64_t> indices,
                   std::int64_t axis);
// Any data dtype; indices int64 or int32, negative ones count from the back; an index out of
// [-dim, dim) throws naming it.
void gather(ConstTensorRef data, ConstTensorRef indices, std::int64_t axis, TensorRef out);

// GatherElements: indices have data's rank, dims no larger than data's except on axis (any size);
// the output has indices' shape.
Shape gather_elements_shape(std::span<const std::int64_t> data,
                            std::span<const std::int64_t> indices, std::int64_t axis);
// out[i][j][k] = data[indices[i][j][k]][j][k] for axis 0, and so on; index rules as gather().
void gather_elements(ConstTensorRef data, ConstTensorRef indices, std::int64_t axis, TensorRef out);

// NonZero: the number of non-zero elements (the output is [rank, count], int64).
std::int64_t nonzero_count(ConstTensorRef in);
// Writes the coordinates of the non-zero elements in row-major order. float32/int64/int32/int8/
// uint8/bool input.
void nonzero(ConstTensorRef in, TensorRef out);

}  // namespace yolo::runtime::kernels
