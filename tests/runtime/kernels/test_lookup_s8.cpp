// SPDX-License-Identifier: Apache-2.0
// The int8 table lookup (vectorised where the CPU has AVX-512 VBMI) against a plain loop: every
// length around the 64-value vector, every byte value, in place and out of place.

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "runtime/kernels/lookup_s8.h"

namespace yolo::runtime::kernels {
namespace {

std::array<std::int8_t, 256> random_table(std::mt19937& rng) {
  std::array<std::int8_t, 256> table{};
  std::uniform_int_distribution<int> dist(-128, 127);
  for (std::int8_t& v : table) v = static_cast<std::int8_t>(dist(rng));
  return table;
}

TEST(LookupS8, EveryLengthMatchesAPlainLoop) {
  std::mt19937 rng(5);
  const auto table = random_table(rng);
  std::uniform_int_distribution<int> dist(-128, 127);
  for (std::size_t n = 0; n <= 200; ++n) {
    std::vector<std::int8_t> in(n + 1), out(n + 1, 42);
    for (std::int8_t& v : in) v = static_cast<std::int8_t>(dist(rng));
    lookup_s8(table, in.data(), out.data(), n);
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(out[i], table[static_cast<std::uint8_t>(in[i])]) << "n " << n << " i " << i;
    }
    EXPECT_EQ(out[n], 42) << "wrote past the end at n " << n;
  }
}

TEST(LookupS8, EveryByteValueInPlace) {
  std::mt19937 rng(6);
  const auto table = random_table(rng);
  std::vector<std::int8_t> values(256);
  for (int v = 0; v < 256; ++v) values[static_cast<std::size_t>(v)] = static_cast<std::int8_t>(v);
  lookup_s8(table, values.data(), values.data(), values.size());
  for (int v = 0; v < 256; ++v) EXPECT_EQ(values[static_cast<std::size_t>(v)], table[v]) << v;
}

}  // namespace
}  // namespace yolo::runtime::kernels
