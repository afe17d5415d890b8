// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <pthreadpool.h>

#include <cstdint>
#include <span>

#include "runtime/kernels/tensor_ref.h"

namespace yolo::runtime::kernels {

// Transpose's output shape: out[i] = in[perm[i]]; an empty perm reverses the axes. Throws unless
// perm is a permutation of [0, rank).
Shape transpose_shape(std::span<const std::int64_t> in, std::span<const std::int64_t> perm);

// Transpose of any dtype. Size-1 axes are dropped and axes that stay adjacent merged first, so
// e.g. NCHW <-> NHWC becomes a batched 2-D transpose, which runs cache-blocked, its bands of rows
// shared among the pool's threads (null: the calling thread); other permutations run on the
// calling thread.
void transpose(ConstTensorRef in, std::span<const std::int64_t> perm, TensorRef out,
               pthreadpool_t pool = nullptr);

}  // namespace yolo::runtime::kernels
