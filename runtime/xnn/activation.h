// SPDX-License-Identifier: Apache-2.0
#pragma once

// Our own activation kernels: SiLU (x * sigmoid(x)), which follows most convolutions in YOLO,
// and sigmoid. One pass over memory instead of XNNPACK's sigmoid + multiply (two passes and a
// temporary), a polynomial exp accurate to a few float ulps, auto-vectorised, and on x86-64
// compiled for AVX-512, AVX2 and baseline with the best chosen at load (NEON is baseline on
// aarch64). Split across the pool's threads when there is a pool. Needing no operator object,
// they suit one-off calls; for a plain sigmoid in the graph UnaryF32::sigmoid (XNNPACK, also
// strided) measured faster on AVX-512 (0.30 vs 0.38 ns/value, 1 thread).

#include <cstddef>

#include <pthreadpool.h>

namespace yolo::runtime::xnn {

// output[p * output_stride + c] = silu(input[p * input_stride + c]) for p < pixels,
// c < channels. Strides are in elements (>= channels). In place (same pointer and stride) is
// allowed; other overlaps are not. Relative error < 1e-6 against x / (1 + std::exp(-x)) for
// |x| < 80 (measured 2.3e-7); for |x| >= 87 it saturates: x for large positive (+inf stays
// +inf), a tiny negative (> -2e-36) for large negative, -inf included. NaN propagates. `pool`
// may be nullptr.
void silu_f32(size_t pixels, size_t channels, const float* input, size_t input_stride,
              float* output, size_t output_stride, pthreadpool_t pool);

// Same layout and guarantees, output = 1 / (1 + exp(-x)) in [0, 1]: exactly 1 for x >= 87,
// 1.6e-38 for x <= -87.
void sigmoid_f32(size_t pixels, size_t channels, const float* input, size_t input_stride,
                 float* output, size_t output_stride, pthreadpool_t pool);

}  // namespace yolo::runtime::xnn
