// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "runtime/kernels/tensor_ref.h"

namespace yolo::runtime::kernels {

// Concat: all inputs share rank and every dim but axis. At least one input.
Shape concat_shape(std::span<const Shape> inputs, std::int64_t axis);
void concat(std::span<const ConstTensorRef> inputs, std::int64_t axis, TensorRef out);

// The sizes of Split's outputs along axis:
// - `split` non-empty (opset 11/12 attribute, 13+ input): used as given, must sum to the dim;
// - else `num_outputs` equal parts: exactly (opset < 18, `uneven_last` false: dim must divide)
//   or ceil(dim / num_outputs) each with a smaller last part (opset 18 attribute, `uneven_last`).
std::vector<std::int64_t> split_sizes(std::span<const std::int64_t> in, std::int64_t axis,
                                      std::span<const std::int64_t> split, std::int64_t num_outputs,
                                      bool uneven_last);
// The output shapes for those sizes.
std::vector<Shape> split_shapes(std::span<const std::int64_t> in, std::int64_t axis,
                                std::span<const std::int64_t> sizes);
// Split in along axis into outputs, whose shapes give the part sizes.
void split(ConstTensorRef in, std::int64_t axis, std::span<const TensorRef> outputs);

}  // namespace yolo::runtime::kernels
