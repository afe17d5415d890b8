// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <span>

#include "runtime/kernels/tensor_ref.h"

namespace yolo::runtime::kernels {

// Transpose's output shape: out[i] = in[perm[i]]; an empty perm reverses the axes. Throws unless
// perm is a permutation of [0, rank).
Shape transpose_shape(std::span<const std::int64_t> in, std::span<const std::int64_t> perm);

// Transpose of any dtype. Size-1 axes are dropped and axes that stay adjacent merged first, so
// e.g. NCHW <-> NHWC becomes a batched 2-D transpose, which runs cache-blocked.
void transpose(ConstTensorRef in, std::span<const std::int64_t> perm, TensorRef out);

}  // namespace yolo::runtime::kernels
