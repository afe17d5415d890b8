// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <pthreadpool.h>

#include <cstdint>

#include "runtime/kernels/tensor_ref.h"

namespace yolo::runtime::kernels {

// Softmax (opset 13+): along one axis, max-subtracted for stability. float32; out may alias in.
// Shared among the pool's threads (null: the calling thread).
void softmax(ConstTensorRef in, std::int64_t axis, TensorRef out, pthreadpool_t pool = nullptr);

// Softmax of opset < 13: the input is coerced to 2-D [prod(in[:axis]), prod(in[axis:])] and
// normalized over each row. axis in [-rank, rank].
void softmax_coerced(ConstTensorRef in, std::int64_t axis, TensorRef out,
                     pthreadpool_t pool = nullptr);

}  // namespace yolo::runtime::kernels
