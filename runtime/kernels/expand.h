// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <span>

#include "runtime/kernels/tensor_ref.h"

namespace yolo::runtime::kernels {

// Expand: numpy broadcast of the input shape with the requested shape (so a requested 1 keeps the
// input's dim, as ONNX says).
Shape expand_shape(std::span<const std::int64_t> in, std::span<const std::int64_t> requested);
// Broadcasts in to out.shape (any dtype).
void expand(ConstTensorRef in, TensorRef out);

// Tile: out[i] = in[i] * repeats[i]; repeats has one non-negative value per dim.
Shape tile_shape(std::span<const std::int64_t> in, std::span<const std::int64_t> repeats);
// Tiles in to out.shape (any dtype).
void tile(ConstTensorRef in, TensorRef out);

}  // namespace yolo::runtime::kernels
