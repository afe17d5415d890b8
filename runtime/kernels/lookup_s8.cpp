// SPDX-License-Identifier: Apache-2.0
#include "runtime/kernels/lookup_s8.h"

#include <cpuinfo.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif
#if defined(__aarch64__)
#include <arm_neon.h>
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

#if defined(__aarch64__)

// NEON is in every aarch64 CPU: the table sits in four sets of four registers, 64 bytes each.
// tbl gives 0 for an index past its 64 bytes and tbx leaves such a lane alone, so each quarter
// answers only for its own indices (index - 64k wraps past 63 for the others). Returns how many
// values it did: whole blocks of 16, the rest is left to the plain loop.
std::size_t lookup_neon(const std::int8_t* table, const std::int8_t* in, std::int8_t* out,
                        std::size_t n) {
  const int8x16x4_t t0 = vld1q_s8_x4(table);
  const int8x16x4_t t1 = vld1q_s8_x4(table + 64);
  const int8x16x4_t t2 = vld1q_s8_x4(table + 128);
  const int8x16x4_t t3 = vld1q_s8_x4(table + 192);
  const uint8x16_t quarter = vdupq_n_u8(64);
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    uint8x16_t idx = vreinterpretq_u8_s8(vld1q_s8(in + i));
    int8x16_t r = vqtbl4q_s8(t0, idx);
    idx = vsubq_u8(idx, quarter);
    r = vqtbx4q_s8(r, t1, idx);
    idx = vsubq_u8(idx, quarter);
    r = vqtbx4q_s8(r, t2, idx);
    idx = vsubq_u8(idx, quarter);
    vst1q_s8(out + i, vqtbx4q_s8(r, t3, idx));
  }
  return i;
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
#if defined(__aarch64__)
  const std::size_t done = lookup_neon(table.data(), in, out, n);
  in += done;
  out += done;
  n -= done;
#endif
  lookup_plain(table.data(), in, out, n);
}

}  // namespace yolo::runtime::kernels
