// SPDX-License-Identifier: Apache-2.0
// The BGR-bytes-to-RGB-floats rows against their plain loops, bit for bit: every length around the
// 16-pixel vector (so every tail), every byte value in every channel, and that nothing is written
// past the row. On x86 both sides are the plain loop; under QEMU the NEON path runs.
#include "vision/pixel_rows.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

namespace yolo::vision {
namespace {

constexpr float kUnwritten = -1.0f;

std::vector<std::uint8_t> random_pixels(std::size_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<std::uint8_t> bgr(3 * n);
  for (auto& v : bgr) v = static_cast<std::uint8_t>(byte(rng));
  return bgr;
}

// Same bits, so -0.0 and 0.0 or two NaNs cannot pass for each other.
bool same_bits(float a, float b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

TEST(PixelRows, PlanarMatchesThePlainLoopAtEveryLength) {
  std::mt19937 rng(11);
  for (std::size_t n = 0; n <= 70; ++n) {
    const auto bgr = random_pixels(n, rng);
    std::vector<float> got(3 * (n + 1), kUnwritten), want(3 * (n + 1), kUnwritten);
    const std::size_t s = n + 1;
    bgr_to_planar_unit(bgr.data(), got.data(), got.data() + s, got.data() + 2 * s, n);
    bgr_to_planar_unit_plain(bgr.data(), want.data(), want.data() + s, want.data() + 2 * s, n);
    for (std::size_t i = 0; i < got.size(); ++i) {
      ASSERT_TRUE(same_bits(got[i], want[i])) << "n " << n << " at " << i;
    }
    for (int plane = 0; plane < 3; ++plane) {
      EXPECT_EQ(got[plane * s + n], kUnwritten) << "wrote past the row at n " << n;
    }
  }
}

TEST(PixelRows, InterleavedMatchesThePlainLoopAtEveryLength) {
  std::mt19937 rng(12);
  for (std::size_t n = 0; n <= 70; ++n) {
    const auto bgr = random_pixels(n, rng);
    std::vector<float> got(3 * n + 1, kUnwritten), want(3 * n + 1, kUnwritten);
    bgr_to_rgb_unit(bgr.data(), got.data(), n);
    bgr_to_rgb_unit_plain(bgr.data(), want.data(), n);
    for (std::size_t i = 0; i < got.size(); ++i) {
      ASSERT_TRUE(same_bits(got[i], want[i])) << "n " << n << " at " << i;
    }
    EXPECT_EQ(got[3 * n], kUnwritten) << "wrote past the row at n " << n;
  }
}

TEST(PixelRows, EveryByteValueIsItsFloat32Quotient) {
  // Pixel v is (b, g, r) = (v, 255 - v, v ^ 0x55): every value in every channel.
  std::vector<std::uint8_t> bgr(3 * 256);
  for (int v = 0; v < 256; ++v) {
    bgr[3 * v] = static_cast<std::uint8_t>(v);
    bgr[3 * v + 1] = static_cast<std::uint8_t>(255 - v);
    bgr[3 * v + 2] = static_cast<std::uint8_t>(v ^ 0x55);
  }
  std::vector<float> planes(3 * 256), rgb(3 * 256);
  bgr_to_planar_unit(bgr.data(), planes.data(), planes.data() + 256, planes.data() + 512, 256);
  bgr_to_rgb_unit(bgr.data(), rgb.data(), 256);
  auto unit = [](int v) { return static_cast<float>(v) / 255.0f; };
  for (int v = 0; v < 256; ++v) {
    EXPECT_TRUE(same_bits(planes[v], unit(v ^ 0x55))) << v;
    EXPECT_TRUE(same_bits(planes[256 + v], unit(255 - v))) << v;
    EXPECT_TRUE(same_bits(planes[512 + v], unit(v))) << v;
    EXPECT_TRUE(same_bits(rgb[3 * v], unit(v ^ 0x55))) << v;
    EXPECT_TRUE(same_bits(rgb[3 * v + 1], unit(255 - v))) << v;
    EXPECT_TRUE(same_bits(rgb[3 * v + 2], unit(v))) << v;
  }
}

}  // namespace
}  // namespace yolo::vision
