// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <pthreadpool.h>

#include <cstdint>
#include <optional>
#include <span>

#include "runtime/kernels/sgemm_x86.h"
#include "runtime/kernels/tensor_ref.h"

namespace yolo::runtime::kernels {

// MatMul (numpy matmul): 1-D a is promoted to [1, K] and b to [K, 1], the added dim removed from
// the result; batch dims broadcast. Throws on mismatched K or batch dims.
Shape matmul_shape(std::span<const std::int64_t> a, std::span<const std::int64_t> b);
// float32, with the kernels of `isa` (Eigen for kBaseline, runtime/kernels/sgemm_x86.h for the
// others); batches that share b run as one taller product. The rows of each product are shared
// among the pool's threads (null: the calling thread).
void matmul(ConstTensorRef a, ConstTensorRef b, TensorRef out, pthreadpool_t pool = nullptr,
            SgemmIsa isa = sgemm_best_isa());

// Gemm: a [M,K] (or [K,M] with trans_a), b [K,N] (or [N,K] with trans_b); result [M,N].
Shape gemm_shape(std::span<const std::int64_t> a, std::span<const std::int64_t> b, bool trans_a,
                 bool trans_b);
// out = alpha * op(a) * op(b) + beta * c, c unidirectionally broadcastable to [M,N]. float32.
void gemm(ConstTensorRef a, ConstTensorRef b, std::optional<ConstTensorRef> c, float alpha,
          float beta, bool trans_a, bool trans_b, TensorRef out);

}  // namespace yolo::runtime::kernels
