// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <span>

#include "runtime/kernels/tensor_ref.h"

namespace yolo::runtime::kernels {

// TopK's output shape (values and indices alike): in with dim axis replaced by k. Throws when k is
// negative or larger than that dim.
Shape topk_shape(std::span<const std::int64_t> in, std::int64_t k, std::int64_t axis);

// The k largest (or smallest) elements along axis and their int64 indices, always sorted (best
// first; ONNX leaves the order unspecified when sorted=0, so sorted order is valid); equal values
// keep the lower index first, like ONNX Runtime. float32, int64, int32. Selects through a k-heap,
// so TopK over 8400 x 80 scores with a small k stays cheap.
void topk(ConstTensorRef in, std::int64_t k, std::int64_t axis, bool largest, TensorRef values,
          TensorRef indices);

}  // namespace yolo::runtime::kernels
