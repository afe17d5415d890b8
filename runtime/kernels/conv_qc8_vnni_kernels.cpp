// SPDX-License-Identifier: Apache-2.0
// The AVX-512 VNNI kernels of ConvQC8Vnni: the channel-vector micro-kernel, the pixel-lane one of
// narrow layers, and the pthreadpool task that runs them over a Job (conv_qc8_vnni.cpp checks,
// packs and plans).
#include "runtime/kernels/conv_qc8_vnni_kernels.h"

#if defined(__x86_64__)

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

namespace yolo::runtime::kernels::qc8_vnni {

namespace {

// GCC 12.2's AVX-512 intrinsics (cvtepi32_ps, cvtps_epi32, ...) start from a self-initialised
// "undefined" register that -Wmaybe-uninitialized reports at every call site (GCC bug 105593,
// fixed in 12.3 and 13).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

// Where an output pixel's receptive field starts: its image and the input row and column of
// kernel tap (0, 0), which may lie in the padding (negative).
struct Origin {
  std::size_t image;
  std::ptrdiff_t y, x;
};

// The origins of `count` consecutive output pixels from `first`: one division, then steps.
inline void origins(const Job& j, std::size_t first, std::size_t count, Origin* out) {
  const ConvQC8Geometry& g = *j.g;
  const std::size_t per_image = j.out_h * j.out_w;
  std::size_t image = first / per_image;
  std::size_t oy = first % per_image / j.out_w;
  std::size_t ox = first % j.out_w;
  for (std::size_t m = 0; m < count; ++m) {
    out[m] = {image,
              static_cast<std::ptrdiff_t>(oy * g.window.stride_height) -
                  static_cast<std::ptrdiff_t>(g.window.pad_top),
              static_cast<std::ptrdiff_t>(ox * g.window.stride_width) -
                  static_cast<std::ptrdiff_t>(g.window.pad_left)};
    if (++ox == j.out_w) {
      ox = 0;
      if (++oy == j.out_h) {
        oy = 0;
        ++image;
      }
    }
  }
}

// The input pixel under kernel tap (ky, kx), or the zero-point pixel in the padding.
inline const std::int8_t* tap_pixel(const Job& j, const Origin& o, std::size_t ky, std::size_t kx) {
  const ConvQC8Geometry& g = *j.g;
  const std::ptrdiff_t iy = o.y + static_cast<std::ptrdiff_t>(ky * g.window.dilation_height);
  const std::ptrdiff_t ix = o.x + static_cast<std::ptrdiff_t>(kx * g.window.dilation_width);
  if (iy < 0 || ix < 0 || iy >= static_cast<std::ptrdiff_t>(j.in_h) ||
      ix >= static_cast<std::ptrdiff_t>(j.in_w)) {
    return j.zero_pixel;
  }
  return j.input + ((o.image * j.in_h + static_cast<std::size_t>(iy)) * j.in_w +
                    static_cast<std::size_t>(ix)) *
                       g.input_pixel_stride;
}

// Kernel row ky of an output pixel as one piece of kernel_width x channels bytes, read in place
// when it lies inside the input with 3 readable bytes after it (the last group of 4 reads past the
// piece, into values whose weights are 0). Otherwise the piece is assembled in `scratch` with the
// zero point where it falls into the padding: only at the borders.
inline const std::int8_t* row_piece(const Job& j, const Origin& o, std::size_t ky,
                                    std::int8_t* scratch) {
  const ConvQC8Geometry& g = *j.g;
  const std::size_t cin = g.input_channels;
  const std::ptrdiff_t iy = o.y + static_cast<std::ptrdiff_t>(ky * g.window.dilation_height);
  const bool row_inside = iy >= 0 && iy < static_cast<std::ptrdiff_t>(j.in_h);
  if (row_inside && o.x >= 0 &&
      o.x + static_cast<std::ptrdiff_t>(g.window.kernel_width) <=
          static_cast<std::ptrdiff_t>(j.in_w)) {
    const std::size_t offset = ((o.image * j.in_h + static_cast<std::size_t>(iy)) * j.in_w +
                                static_cast<std::size_t>(o.x)) *
                               cin;
    if (offset + j.groups * 4 <= j.input_bytes) return j.input + offset;
  }
  for (std::size_t kx = 0; kx < g.window.kernel_width; ++kx) {
    const std::ptrdiff_t ix = o.x + static_cast<std::ptrdiff_t>(kx);
    const bool inside = row_inside && ix >= 0 && ix < static_cast<std::ptrdiff_t>(j.in_w);
    const std::int8_t* src =
        inside ? j.input + ((o.image * j.in_h + static_cast<std::size_t>(iy)) * j.in_w +
                            static_cast<std::size_t>(ix)) *
                               cin
               : j.zero_pixel;
    std::memcpy(scratch + kx * cin, src, cin);
  }
  return scratch;
}

// Where kernel tap (ky, kx) of an output pixel lies in the input, in bytes from its start; the
// tap must be inside the image.
inline std::size_t input_offset(const Job& j, const Origin& o, std::size_t ky, std::size_t kx) {
  const ConvQC8Geometry& g = *j.g;
  const auto iy = static_cast<std::size_t>(o.y) + ky * g.window.dilation_height;
  const auto ix = static_cast<std::size_t>(o.x) + kx * g.window.dilation_width;
  return ((o.image * j.in_h + iy) * j.in_w + ix) * g.input_pixel_stride;
}

// The kernel position (ky, kx) of reduction tap `tap`: a whole kernel row (kx = 0) when the layer
// reads by kernel rows.
inline std::pair<std::size_t, std::size_t> tap_position(const Job& j, std::size_t tap) {
  if (j.kernel_rows) return {tap, 0};
  const std::size_t width = j.g->window.kernel_width;
  return {tap / width, tap % width};
}

// Whether all MR pixels are real, in one output row, and every tap of theirs lies inside the
// image (and a kernel row's reads past its end inside the input): then the micro-kernel steps
// from pixel to pixel by a constant instead of placing each tap of each pixel. Most pixels of a
// layer are such runs; per-tap placement cost as much as the multiply-adds in the 3-channel stem.
template <int MR>
inline bool inside_run(const Job& j, const Origin (&origin)[MR], std::size_t count) {
  const ConvQC8Geometry& g = *j.g;
  const Origin& first = origin[0];
  const Origin& last = origin[MR - 1];
  if (count < static_cast<std::size_t>(MR) || first.y != last.y || first.image != last.image ||
      first.y < 0 || first.x < 0) {
    return false;
  }
  const auto extent = [](std::size_t kernel, std::size_t dilation) {
    return static_cast<std::ptrdiff_t>((kernel - 1) * dilation);
  };
  if (first.y + extent(g.window.kernel_height, g.window.dilation_height) >=
          static_cast<std::ptrdiff_t>(j.in_h) ||
      last.x + extent(g.window.kernel_width, g.window.dilation_width) >=
          static_cast<std::ptrdiff_t>(j.in_w)) {
    return false;
  }
  // A kernel row reads groups * 4 bytes from its first tap, past its own piece.
  return !j.kernel_rows ||
         input_offset(j, last, g.window.kernel_height - 1, 0) + j.groups * 4 <= j.input_bytes;
}

// Four input values as the unsigned operand of vpdpbusd: x + 128 (the bias absorbs the offset).
YOLO_VNNI_TARGET inline __m512i broadcast_u8(const std::int8_t* p) {
  std::int32_t v;
  std::memcpy(&v, p, 4);
  return _mm512_xor_si512(_mm512_set1_epi32(v), _mm512_set1_epi32(static_cast<int>(0x80808080U)));
}

// The last group of a pixel whose channel count is not a multiple of 4: only those are read.
YOLO_VNNI_TARGET inline __m512i broadcast_u8_tail(const std::int8_t* p, std::size_t bytes) {
  std::int32_t v = 0;
  std::memcpy(&v, p, bytes);
  return _mm512_xor_si512(_mm512_set1_epi32(v), _mm512_set1_epi32(static_cast<int>(0x80808080U)));
}

// One group of four input channels for MR pixels times NV vectors of weights.
template <int MR, int NV>
YOLO_VNNI_TARGET inline void multiply_add(__m512i (&acc)[MR][NV], const __m512i (&x)[MR],
                                          const std::int8_t* w) {
  __m512i wv[NV];
#pragma GCC unroll 16
  for (int v = 0; v < NV; ++v) wv[v] = _mm512_loadu_si512(w + v * 64);
#pragma GCC unroll 16
  for (int m = 0; m < MR; ++m) {
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) acc[m][v] = _mm512_dpbusd_epi32(acc[m][v], x[m], wv[v]);
  }
}

// The output stage both kernels end in: XNNPACK's QC8 requantization (the int32 sum to float,
// times the channel's scale, clamped, rounded to nearest even, offset by the zero point), then the
// fused table, if any, as two 128-entry vpermi2b lookups chosen by the top bit.
struct OutputStage {
  __m512 low, high;
  __m512i zero_point;
  const std::int8_t* table_bytes;
  __m512i table[4];

  YOLO_VNNI_TARGET explicit OutputStage(const Job& j)
      : low(_mm512_set1_ps(static_cast<float>(j.q->output_min - j.q->output_zero_point))),
        high(_mm512_set1_ps(static_cast<float>(j.q->output_max - j.q->output_zero_point))),
        zero_point(_mm512_set1_epi32(j.q->output_zero_point)),
        table_bytes(j.table) {
    if (table_bytes != nullptr) {
      for (int i = 0; i < 4; ++i) table[i] = _mm512_loadu_si512(table_bytes + 64 * i);
    }
  }
  // 16 int32 sums to int8, each scaled by its lane of `scale`.
  YOLO_VNNI_TARGET __m128i requantize(__m512i acc, __m512 scale) const {
    const __m512 y =
        _mm512_min_ps(_mm512_max_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(acc), scale), low), high);
    return _mm512_cvtsepi32_epi8(_mm512_add_epi32(_mm512_cvtps_epi32(y), zero_point));
  }
  // The table on every byte of `v` (v itself without a table).
  YOLO_VNNI_TARGET __m512i apply_table(__m512i v) const {
    if (table_bytes == nullptr) return v;
    const __m512i low_half = _mm512_permutex2var_epi8(table[0], v, table[1]);
    const __m512i high_half = _mm512_permutex2var_epi8(table[2], v, table[3]);
    return _mm512_mask_blend_epi8(_mm512_movepi8_mask(v), low_half, high_half);
  }
};

// MR output pixels x NV vectors of 16 output channels of block `block`, starting at `first`;
// `count` <= MR pixels are real (the others repeat the last one and are not stored).
template <int MR, int NV>
YOLO_VNNI_TARGET void micro_kernel(const Job& j, std::size_t first, std::size_t count,
                                   std::size_t block) {
  const ConvQC8Geometry& g = *j.g;
  const std::size_t channel0 = block * kBlock;
  __m512i acc[MR][NV];
#pragma GCC unroll 16
  for (int v = 0; v < NV; ++v) {
    const __m512i b = _mm512_loadu_si512(j.bias + channel0 + v * kVector);
#pragma GCC unroll 16
    for (int m = 0; m < MR; ++m) acc[m][v] = b;
  }
  Origin origin[MR];
  origins(j, first, count, origin);
  // Rows past `count` repeat the last real pixel: computed, never stored.
  for (std::size_t m = count; m < MR; ++m) origin[m] = origin[count - 1];

  const std::int8_t* w = j.packed + j.block_offset[block];
  alignas(64) std::int8_t scratch[MR][kMaxRowPiece + 4];
  const std::int8_t* a[MR];
  const std::size_t cin = g.input_channels;
  // Bytes of the last group of each tap (kernel rows always have 4 readable bytes).
  const std::size_t tail = j.kernel_rows || cin % 4 == 0 ? 4 : cin % 4;
  const bool run = inside_run<MR>(j, origin, count);
  for (std::size_t tap = 0; tap < j.taps; ++tap) {
    const auto [ky, kx] = tap_position(j, tap);
    if (run) {
      // MR pixels of one row, no tap in the padding: the taps are a constant step apart.
      const std::int8_t* first_tap = j.input + input_offset(j, origin[0], ky, kx);
#pragma GCC unroll 16
      for (int m = 0; m < MR; ++m) a[m] = first_tap + m * j.run_step;
    } else if (j.kernel_rows) {
#pragma GCC unroll 16
      for (int m = 0; m < MR; ++m) a[m] = row_piece(j, origin[m], tap, scratch[m]);
    } else {
#pragma GCC unroll 16
      for (int m = 0; m < MR; ++m) a[m] = tap_pixel(j, origin[m], ky, kx);
    }
    // Every group reads four bytes except a short last one of a pixel read in place.
    const std::size_t full_groups = tail == 4 ? j.groups : j.groups - 1;
    for (std::size_t group = 0; group < full_groups; ++group, w += NV * 64) {
      __m512i x[MR];
#pragma GCC unroll 16
      for (int m = 0; m < MR; ++m) x[m] = broadcast_u8(a[m] + group * 4);
      multiply_add<MR, NV>(acc, x, w);
    }
    if (full_groups < j.groups) {
      __m512i x[MR];
#pragma GCC unroll 16
      for (int m = 0; m < MR; ++m) x[m] = broadcast_u8_tail(a[m] + full_groups * 4, tail);
      multiply_add<MR, NV>(acc, x, w);
      w += NV * 64;
    }
  }

  const OutputStage stage(j);
  const std::size_t channels_left = g.output_channels - channel0;
#pragma GCC unroll 16
  for (int v = 0; v < NV; ++v) {
    const __m512 scale = _mm512_loadu_ps(j.scale + channel0 + v * kVector);
    const std::size_t lanes =
        std::min(kVector, channels_left - std::min(channels_left, v * kVector));
    const __mmask16 store_mask = static_cast<__mmask16>((1U << lanes) - 1U);
#pragma GCC unroll 16
    for (int m = 0; m < MR; ++m) {
      if (static_cast<std::size_t>(m) >= count) break;
      const __m128i out = _mm512_castsi512_si128(
          stage.apply_table(_mm512_castsi128_si512(stage.requantize(acc[m][v], scale))));
      _mm_mask_storeu_epi8(j.output + (first + m) * g.output_pixel_stride + channel0 + v * kVector,
                           store_mask, out);
    }
  }
}

// Narrow layers (at most 16 output channels: the 3-channel stem, the 8- and 16-channel
// bottlenecks at the highest resolutions) waste the channel-vector kernel: each group of 4 inputs
// of a pixel is broadcast for one or two multiply-adds, and the half-empty vector of an 8-channel
// layer does half the work. Here the 16 lanes are 16 pixels of an inside run instead: one permute
// gathers a group of 4 inputs of all 16 (see NarrowLoad), and every output channel multiplies it
// by its broadcast weights. The results are transposed to pixel-major bytes in registers.
constexpr std::size_t kNarrowPixels = 16;

// vpermi2b indices that transpose OC rows of 16 pixel bytes, packed 4 rows to a zmm (row r at
// bytes 16 * (r % 4) of zmm r / 4), into pixel-major output: out[OC * p + c] for the 64 / OC
// pixels of output vector `part`. The table holds two such zmm: rows c % 8 of the pair.
template <int OC>
constexpr std::array<std::uint8_t, 64> transpose_index(int part) {
  std::array<std::uint8_t, 64> index{};
  constexpr int kPixels = 64 / OC;
  for (int p = 0; p < kPixels; ++p) {
    for (int c = 0; c < OC; ++c) {
      const int row = c % 8;
      index[static_cast<std::size_t>(OC * p + c)] =
          static_cast<std::uint8_t>(row / 4 * 64 + row % 4 * 16 + part * kPixels + p);
    }
  }
  return index;
}

// The 16 pixels from `first`, an inside run starting at `origin`, for OC (8 or 16) lanes of
// packed output channels (the real ones and zero weights after them).
template <int OC>
YOLO_VNNI_TARGET void narrow_run(const Job& j, std::size_t first, const Origin& origin) {
  const ConvQC8Geometry& g = *j.g;
  __m512i acc[OC];
#pragma GCC unroll 16
  for (int c = 0; c < OC; ++c) acc[c] = _mm512_set1_epi32(j.bias[c]);
  const std::size_t step = j.run_step;
  const __m512i flip = _mm512_set1_epi32(static_cast<int>(0x80808080U));
  // One block of 16 channel lanes: per tap and group, 4 weight bytes for each channel.
  const std::int8_t* w = j.packed;
  const auto multiply_add = [&](__m512i x) YOLO_VNNI_TARGET {
#pragma GCC unroll 16
    for (int c = 0; c < OC; ++c) {
      std::int32_t weights;
      std::memcpy(&weights, w + c * 4, 4);
      acc[c] = _mm512_dpbusd_epi32(acc[c], x, _mm512_set1_epi32(weights));
    }
    w += kVector * 4;
  };
  // Bytes the groups of a tap span over the 16 pixels: loads read no further.
  const std::size_t span = (kNarrowPixels - 1) * step + j.groups * 4;
  const auto below = [](std::size_t bytes) -> __mmask64 {
    return bytes >= 64 ? ~__mmask64{0} : (__mmask64{1} << bytes) - 1;
  };
  // kBytes: byte 4 p + b of a group's vector is byte p * step + b of the span (then + 4 a group).
  const __m512i byte_index = _mm512_add_epi32(
      _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                         _mm512_set1_epi32(static_cast<int>(step * 0x01010101U))),
      _mm512_set1_epi32(0x03020100));
  // kDwords (16 bytes a pixel): dword p % 8 * 4 of each half (then + 1 a group).
  const __m512i dword_index =
      _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 0, 4, 8, 12, 16, 20, 24, 28);
  for (std::size_t tap = 0; tap < j.taps; ++tap) {
    const auto [ky, kx] = tap_position(j, tap);
    const std::int8_t* pixels = j.input + input_offset(j, origin, ky, kx);
    if (j.narrow == NarrowLoad::kBytes) {
      const __m512i lo = _mm512_xor_si512(_mm512_maskz_loadu_epi8(below(span), pixels), flip);
      const __m512i hi = _mm512_xor_si512(
          _mm512_maskz_loadu_epi8(below(span - std::min<std::size_t>(span, 64)), pixels + 64),
          flip);
      __m512i index = byte_index;
      for (std::size_t group = 0; group < j.groups; ++group) {
        multiply_add(_mm512_permutex2var_epi8(lo, index, hi));
        index = _mm512_add_epi8(index, _mm512_set1_epi8(4));
      }
    } else {
      // Pixel p's groups at bytes 16 p of the four quarters.
      __m512i quarter[4];
      if (step == 16) {
        for (std::size_t i = 0; i < 4; ++i) {
          const std::size_t from = i * 64;
          quarter[i] = _mm512_maskz_loadu_epi8(below(span - std::min(span, from)), pixels + from);
        }
      } else {
        const auto mask = static_cast<__mmask16>((1U << (j.groups * 4)) - 1);
        const auto pixel = [&](std::size_t p) YOLO_VNNI_TARGET {
          return _mm_maskz_loadu_epi8(mask, pixels + p * step);
        };
        for (std::size_t i = 0; i < 4; ++i) {
          __m512i q = _mm512_castsi128_si512(pixel(4 * i));
          q = _mm512_inserti32x4(q, pixel(4 * i + 1), 1);
          q = _mm512_inserti32x4(q, pixel(4 * i + 2), 2);
          quarter[i] = _mm512_inserti32x4(q, pixel(4 * i + 3), 3);
        }
      }
      for (__m512i& q : quarter) q = _mm512_xor_si512(q, flip);
      __m512i index = dword_index;
      for (std::size_t group = 0; group < j.groups; ++group) {
        multiply_add(_mm512_mask_blend_epi32(
            0xFF00, _mm512_permutex2var_epi32(quarter[0], index, quarter[1]),
            _mm512_permutex2var_epi32(quarter[2], index, quarter[3])));
        index = _mm512_add_epi32(index, _mm512_set1_epi32(1));
      }
    }
  }

  const OutputStage stage(j);
  // Rows of 16 pixel bytes per channel, four to a zmm.
  __m512i rows[OC / 4];
#pragma GCC unroll 16
  for (int c = 0; c < OC; ++c) {
    const __m128i row = stage.requantize(acc[c], _mm512_set1_ps(j.scale[c]));
    rows[c / 4] =
        c % 4 == 0 ? _mm512_castsi128_si512(row) : _mm512_inserti32x4(rows[c / 4], row, c % 4);
  }
  constexpr int kParts = OC / 4;  // output vectors of 64 / OC pixels each
  static constexpr std::array<std::array<std::uint8_t, 64>, kParts> kIndex = [] {
    std::array<std::array<std::uint8_t, 64>, kParts> all{};
    for (int part = 0; part < kParts; ++part)
      all[static_cast<std::size_t>(part)] = transpose_index<OC>(part);
    return all;
  }();
  const std::size_t channels = g.output_channels;
  const bool dense = g.output_pixel_stride == static_cast<std::size_t>(OC) && channels == OC;
  std::int8_t* out = j.output + first * g.output_pixel_stride;
  alignas(64) std::int8_t bytes[64];
  const auto mask = static_cast<__mmask16>((1U << channels) - 1U);
#pragma GCC unroll 4
  for (int part = 0; part < kParts; ++part) {
    const __m512i idx = _mm512_loadu_si512(kIndex[static_cast<std::size_t>(part)].data());
    __m512i v = _mm512_permutex2var_epi8(rows[0], idx, rows[1]);
    if constexpr (OC == 16) {
      // Channels 8..15 of each pixel come from the second pair of row vectors.
      v = _mm512_mask_blend_epi8(0xFF00FF00FF00FF00ULL, v,
                                 _mm512_permutex2var_epi8(rows[2], idx, rows[3]));
    }
    v = stage.apply_table(v);
    constexpr std::size_t kPixels = 64 / OC;
    if (dense) {
      _mm512_storeu_si512(out + part * 64, v);
      continue;
    }
    _mm512_store_si512(bytes, v);
    for (std::size_t p = 0; p < kPixels; ++p) {
      _mm_mask_storeu_epi8(out + (part * kPixels + p) * g.output_pixel_stride, mask,
                           _mm_maskz_loadu_epi8(mask, bytes + p * OC));
    }
  }
}

// Pixels [start, end) of a narrow layer: inside runs of 16 in the pixel-lane kernel, the rest
// (borders) in the channel-vector one.
template <int OC>
YOLO_VNNI_TARGET void narrow_rows(const Job& j, std::size_t start, std::size_t end) {
  for (std::size_t first = start; first < end;) {
    if (end - first >= kNarrowPixels) {
      Origin origin[kNarrowPixels];
      origins(j, first, kNarrowPixels, origin);
      if (inside_run<kNarrowPixels>(j, origin, kNarrowPixels)) {
        narrow_run<OC>(j, first, origin[0]);
        first += kNarrowPixels;
        continue;
      }
    }
    const std::size_t count = std::min<std::size_t>(8, end - first);
    micro_kernel<8, 1>(j, first, count, 0);
    first += count;
  }
}

template <int MR, int NV>
YOLO_VNNI_TARGET void block_rows(const Job& j, std::size_t start, std::size_t end,
                                 std::size_t block) {
  for (std::size_t first = start; first < end; first += MR) {
    micro_kernel<MR, NV>(j, first, std::min<std::size_t>(MR, end - first), block);
  }
}

}  // namespace

// One pthreadpool task: pixels [start, start + count) for every output channel block. Fewer
// vectors per block leave registers for more pixels.
YOLO_VNNI_TARGET void conv_task(void* context, std::size_t start, std::size_t count) {
  const Job& j = *static_cast<const Job*>(context);
  const std::size_t end = start + count;
  if (j.narrow != NarrowLoad::kNone) {
    if (j.g->output_channels <= 8) return narrow_rows<8>(j, start, end);
    return narrow_rows<16>(j, start, end);
  }
  for (std::size_t block = 0; block < j.blocks; ++block) {
    const std::size_t channels = std::min(kBlock, j.g->output_channels - block * kBlock);
    switch ((channels + kVector - 1) / kVector) {
      case 4:
        block_rows<6, 4>(j, start, end, block);
        break;
      case 3:
        block_rows<8, 3>(j, start, end, block);
        break;
      case 2:
        block_rows<8, 2>(j, start, end, block);
        break;
      default:
        block_rows<8, 1>(j, start, end, block);
        break;
    }
  }
}

#pragma GCC diagnostic pop

NarrowLoad narrow_load(const ConvQC8Geometry& g, bool kernel_rows, std::size_t groups,
                       std::size_t step) {
  if (g.output_channels > kNarrowPixels || (!kernel_rows && g.input_channels % 4 != 0)) {
    return NarrowLoad::kNone;
  }
  if ((kNarrowPixels - 1) * step + groups * 4 <= 128) return NarrowLoad::kBytes;
  return groups * 4 <= 16 ? NarrowLoad::kDwords : NarrowLoad::kNone;
}

}  // namespace yolo::runtime::kernels::qc8_vnni

#endif  // __x86_64__
