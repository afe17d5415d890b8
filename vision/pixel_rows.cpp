// SPDX-License-Identifier: Apache-2.0
#include "vision/pixel_rows.h"

#include <array>

#if defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace yolo::vision {
namespace {

const std::array<float, 256>& unit_table() {
  static const std::array<float, 256> table = [] {
    std::array<float, 256> t{};
    for (int v = 0; v < 256; ++v) t[v] = static_cast<float>(v) / 255.0f;
    return t;
  }();
  return table;
}

#if defined(__aarch64__)

// Four float32x4 of v / 255 for the 16 bytes of `v`. IEEE division is correctly rounded in NEON
// as in scalar code, so this equals the table (a multiply by 1/255 would not).
float32x4x4_t unit16(uint8x16_t v) {
  const float32x4_t k255 = vdupq_n_f32(255.0f);
  const uint16x8_t low = vmovl_u8(vget_low_u8(v));
  const uint16x8_t high = vmovl_high_u8(v);
  return {vdivq_f32(vcvtq_f32_u32(vmovl_u16(vget_low_u16(low))), k255),
          vdivq_f32(vcvtq_f32_u32(vmovl_high_u16(low)), k255),
          vdivq_f32(vcvtq_f32_u32(vmovl_u16(vget_low_u16(high))), k255),
          vdivq_f32(vcvtq_f32_u32(vmovl_high_u16(high)), k255)};
}

// Both return how many pixels they did (whole blocks of 16); the plain loop does the rest.
std::size_t planar_neon(const std::uint8_t* bgr, float* r, float* g, float* b, std::size_t n) {
  std::size_t x = 0;
  for (; x + 16 <= n; x += 16) {
    const uint8x16x3_t px = vld3q_u8(bgr + 3 * x);
    vst1q_f32_x4(r + x, unit16(px.val[2]));
    vst1q_f32_x4(g + x, unit16(px.val[1]));
    vst1q_f32_x4(b + x, unit16(px.val[0]));
  }
  return x;
}

std::size_t interleaved_neon(const std::uint8_t* bgr, float* rgb, std::size_t n) {
  std::size_t x = 0;
  for (; x + 16 <= n; x += 16) {
    const uint8x16x3_t px = vld3q_u8(bgr + 3 * x);
    const float32x4x4_t r = unit16(px.val[2]);
    const float32x4x4_t g = unit16(px.val[1]);
    const float32x4x4_t b = unit16(px.val[0]);
    for (int q = 0; q < 4; ++q) vst3q_f32(rgb + 3 * (x + 4 * q), {r.val[q], g.val[q], b.val[q]});
  }
  return x;
}

#endif

}  // namespace

void bgr_to_planar_unit_plain(const std::uint8_t* bgr, float* r, float* g, float* b,
                              std::size_t n) {
  const auto& unit = unit_table();
  for (std::size_t x = 0; x < n; ++x, bgr += 3) {
    b[x] = unit[bgr[0]];
    g[x] = unit[bgr[1]];
    r[x] = unit[bgr[2]];
  }
}

void bgr_to_rgb_unit_plain(const std::uint8_t* bgr, float* rgb, std::size_t n) {
  const auto& unit = unit_table();
  for (std::size_t x = 0; x < n; ++x, bgr += 3, rgb += 3) {
    rgb[0] = unit[bgr[2]];
    rgb[1] = unit[bgr[1]];
    rgb[2] = unit[bgr[0]];
  }
}

void bgr_to_planar_unit(const std::uint8_t* bgr, float* r, float* g, float* b, std::size_t n) {
  std::size_t done = 0;
#if defined(__aarch64__)
  done = planar_neon(bgr, r, g, b, n);
#endif
  bgr_to_planar_unit_plain(bgr + 3 * done, r + done, g + done, b + done, n - done);
}

void bgr_to_rgb_unit(const std::uint8_t* bgr, float* rgb, std::size_t n) {
  std::size_t done = 0;
#if defined(__aarch64__)
  done = interleaved_neon(bgr, rgb, n);
#endif
  bgr_to_rgb_unit_plain(bgr + 3 * done, rgb + 3 * done, n - done);
}

}  // namespace yolo::vision
