// SPDX-License-Identifier: Apache-2.0
#pragma once

// FP32 matrix products on x86-64 with AVX2 + FMA or AVX-512. The build targets the x86-64
// baseline (SSE2), so Eigen's products run 4 floats per instruction and no FMA where the CPU does
// 8 or 16 with FMA: the attention MatMuls of yolo26n 640 took 2.6 ms a frame that way. These
// kernels are compiled for their instruction sets and chosen at run time. On arm64 NEON is the
// baseline and Eigen's kernels already use it, so there is nothing to choose.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace yolo::runtime::kernels {

enum class SgemmIsa : std::uint8_t {
  kBaseline,  // Eigen, as the build's baseline instruction set allows
  kAvx2,      // AVX2 + FMA (x86-64-v3)
  kAvx512,    // AVX-512F
};

const char* sgemm_isa_name(SgemmIsa isa);
// The instruction sets this CPU runs, kBaseline first; the last is the fastest.
std::vector<SgemmIsa> sgemm_isas();
// The last of sgemm_isas(), found once.
SgemmIsa sgemm_best_isa();

// c[rows, n] = a[rows, k] * b[k, n], each dense and row-major, with kernels of `isa` (kAvx2 or
// kAvx512, which this CPU must have: see sgemm_isas()).
void sgemm_x86(SgemmIsa isa, const float* a, const float* b, float* c, std::size_t rows,
               std::size_t n, std::size_t k);

}  // namespace yolo::runtime::kernels
