#include "runtime/kernels/lookup_s8.h"

#include <cpuinfo.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace yolo::runtime::kernels {

namespace {

void lookup_plain(const std::int8_t* table, const std::int8_t* in, std::int8_t* out,
                  std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = table[static_cast<std::uint8_t>(in[i])];
}

#if defined(__x86_64__)

__attribute__((target("avx512f,avx512bw,avx512vbmi"))) void lookup_vbmi(const std::int8_t* table,
                                                                        const std::int8_t* in,
                                                                        std::int8_t* out,
                                                                        std::size_t n) {
  const __m512i t0 = _mm512_loadu_si512(table);
  const __m512i t1 = _mm512_loadu_si512(table + 64);
  const __m512i t2 = _mm512_loadu_si512(table + 128);
  const __m512i t3 = _mm512_loadu_si512(table + 192);
  std::size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512i idx = _mm512_loadu_si512(in + i);
    const __m512i low = _mm512_permutex2var_epi8(t0, idx, t1);
    const __m512i high = _mm512_permutex2var_epi8(t2, idx, t3);
    _mm512_storeu_si512(out + i, _mm512_mask_blend_epi8(_mm512_movepi8_mask(idx), low, high));
  }
  if (i < n) {
    const __mmask64 tail = (~__mmask64{0}) >> (64 - (n - i));
    const __m512i idx = _mm512_maskz_loadu_epi8(tail, in + i);
    const __m512i low = _mm512_permutex2var_epi8(t0, idx, t1);
    const __m512i high = _mm512_permutex2var_epi8(t2, idx, t3);
    _mm512_mask_storeu_epi8(out + i, tail,
                            _mm512_mask_blend_epi8(_mm512_movepi8_mask(idx), low, high));
  }
}

bool has_vbmi() {
  static const bool has =
      cpuinfo_initialize() && cpuinfo_has_x86_avx512bw() && cpuinfo_has_x86_avx512vbmi();
  return has;
}

#endif

}  // namespace

void lookup_s8(const std::array<std::int8_t, 256>& table, const std::int8_t* in, std::int8_t* out,
               std::size_t n) {
#if defined(__x86_64__)
  if (has_vbmi()) {
    lookup_vbmi(table.data(), in, out, n);
    return;
  }
#endif
  lookup_plain(table.data(), in, out, n);
}

}  // namespace yolo::runtime::kernels
