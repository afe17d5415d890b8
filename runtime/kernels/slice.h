// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "runtime/kernels/tensor_ref.h"

namespace yolo::runtime::kernels {

// A Slice resolved against an input shape: for every input dim, the first index, the step and the
// output length (dims not in axes: start 0, step 1, whole length).
struct SliceRange {
  std::vector<std::int64_t> starts;
  std::vector<std::int64_t> steps;
  Shape shape;
};

// Resolves ONNX Slice (opset 10+) arguments: negative starts/ends count from the back, values out
// of range (INT64_MAX, INT64_MIN...) clamp as the spec says, for negative steps too. axes empty
// means [0, starts.size()), steps empty means all 1. Throws on mismatched lengths, a bad or
// repeated axis, or a zero step.
SliceRange resolve_slice(std::span<const std::int64_t> in, std::span<const std::int64_t> starts,
                         std::span<const std::int64_t> ends, std::span<const std::int64_t> axes,
                         std::span<const std::int64_t> steps);

// out.shape must be range.shape. Any dtype.
void slice(ConstTensorRef in, const SliceRange& range, TensorRef out);

}  // namespace yolo::runtime::kernels
