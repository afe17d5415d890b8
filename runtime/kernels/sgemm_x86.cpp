// SPDX-License-Identifier: Apache-2.0
#include "runtime/kernels/sgemm_x86.h"

#include <cpuinfo.h>

#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace yolo::runtime::kernels {

namespace {

#if defined(__x86_64__)

// Each kernel is compiled for its instruction set (a target pragma around its namespace); the
// dispatch below only calls it on a CPU that has that set. A namespace names its vector type and
// its fused multiply-add; the body does the rest with GCC's vector operators.
#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace avx2 {
using V = __m256;
constexpr int kRows = 6;  // 12 accumulators and 2 rows of b in the 16 ymm registers
inline V fma(V a, V b, V c) {
  return _mm256_fmadd_ps(a, b, c);
}
#include "runtime/kernels/sgemm_x86_body.inc"
}  // namespace avx2
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f")
namespace avx512 {
using V = __m512;
constexpr int kRows = 8;  // 16 accumulators of the 32 zmm registers
inline V fma(V a, V b, V c) {
  return _mm512_fmadd_ps(a, b, c);
}
#include "runtime/kernels/sgemm_x86_body.inc"
}  // namespace avx512
#pragma GCC pop_options

#endif  // __x86_64__

}  // namespace

const char* sgemm_isa_name(SgemmIsa isa) {
  // In SgemmIsa's order.
  constexpr const char* kNames[] = {"baseline", "avx2", "avx512"};
  return kNames[static_cast<std::size_t>(isa)];
}

std::vector<SgemmIsa> sgemm_isas() {
  std::vector<SgemmIsa> out{SgemmIsa::kBaseline};
#if defined(__x86_64__)
  if (!cpuinfo_initialize()) return out;
  if (cpuinfo_has_x86_avx2() && cpuinfo_has_x86_fma3()) out.push_back(SgemmIsa::kAvx2);
  if (cpuinfo_has_x86_avx512f()) out.push_back(SgemmIsa::kAvx512);
#endif
  return out;
}

SgemmIsa sgemm_best_isa() {
  static const SgemmIsa best = sgemm_isas().back();
  return best;
}

void sgemm_x86(SgemmIsa isa, const float* a, const float* b, float* c, std::size_t rows,
               std::size_t n, std::size_t k) {
#if defined(__x86_64__)
  switch (isa) {
    case SgemmIsa::kAvx2:
      return avx2::product(a, b, c, rows, n, k);
    case SgemmIsa::kAvx512:
      return avx512::product(a, b, c, rows, n, k);
    case SgemmIsa::kBaseline:
      break;
  }
#else
  (void)a, (void)b, (void)c, (void)rows, (void)n, (void)k;
#endif
  throw std::invalid_argument(std::string("sgemm: no ") + sgemm_isa_name(isa) +
                              " kernel for this CPU or build");
}

}  // namespace yolo::runtime::kernels
