// SPDX-License-Identifier: Apache-2.0
// The quantization chain (runtime/kernels/quantize.h) against the ONNX formulas written out here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>

#include "runtime/kernels/quantize.h"
#include "tests/support/random_tensors.h"

namespace yolo::runtime::kernels {
namespace {

using test::expect_throws_naming;

test::Random rng(11);

// Round half to even through the FE_TONEAREST default of nearbyint, as ONNX specifies.
double round_even(double x) {
  return std::nearbyint(x);
}

TEST(DynamicQuantizeLinear, MatchesTheOnnxFormula) {
  for (const auto& [lo, hi] :
       std::vector<std::pair<float, float>>{{-3.0F, 5.0F}, {0.5F, 2.0F}, {-4.0F, -1.0F}}) {
    const Tensor x = rng.floats({3, 37}, lo, hi);
    Tensor y(DType::kUInt8, {3, 37});
    const DynamicQuantParams q = dynamic_quantize_linear(x, y);
    const auto values = x.values<float>();
    const float x_min = std::min(0.0F, *std::min_element(values.begin(), values.end()));
    const float x_max = std::max(0.0F, *std::max_element(values.begin(), values.end()));
    const float scale = (x_max - x_min) / 255.0F;
    EXPECT_FLOAT_EQ(q.scale, scale);
    const double zp = std::clamp(round_even(-x_min / scale), 0.0, 255.0);
    EXPECT_EQ(q.zero_point, static_cast<std::uint8_t>(zp));
    for (std::int64_t i = 0; i < x.size(); ++i) {
      const double want =
          std::clamp(round_even(values[static_cast<std::size_t>(i)] / scale) + zp, 0.0, 255.0);
      ASSERT_EQ(y.data_as<std::uint8_t>()[i], static_cast<std::uint8_t>(want)) << "at " << i;
    }
  }
}

TEST(DynamicQuantizeLinear, AllZeroInputUsesScaleOne) {
  Tensor x(DType::kFloat32, {4});
  std::fill_n(x.data_as<float>(), 4, 0.0F);
  Tensor y(DType::kUInt8, {4});
  const DynamicQuantParams q = dynamic_quantize_linear(x, y);
  EXPECT_EQ(q.scale, 1.0F);
  EXPECT_EQ(q.zero_point, 0);
  EXPECT_EQ(y.data_as<std::uint8_t>()[3], 0);
}

TEST(QuantizeLinear, RoundsHalfToEvenAndSaturates) {
  Tensor x(DType::kFloat32, {8});
  const float values[] = {0.5F, 1.5F, 2.5F, -0.5F, -1.5F, 1000.0F, -1000.0F, 0.49F};
  std::copy(values, values + 8, x.data_as<float>());
  Tensor scale(DType::kFloat32, {});
  *scale.data_as<float>() = 1.0F;
  Tensor zp(DType::kInt8, {});
  *zp.data_as<std::int8_t>() = 0;
  Tensor y(DType::kInt8, {8});
  quantize_linear(x, scale, zp, 1, y);
  const std::int8_t want[] = {0, 2, 2, 0, -2, 127, -128, 0};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(y.data_as<std::int8_t>()[i], want[i]) << "at " << i;
  Tensor u(DType::kUInt8, {8});
  quantize_linear(x, scale, std::nullopt, 1, u);
  EXPECT_EQ(u.data_as<std::uint8_t>()[1], 2);
  EXPECT_EQ(u.data_as<std::uint8_t>()[4], 0);
  EXPECT_EQ(u.data_as<std::uint8_t>()[5], 255);
}

TEST(QuantizeLinear, PerAxisRoundTripsThroughDequantize) {
  for (std::int64_t axis : {0, 1, -1, 3}) {
    const Shape shape = {4, 3, 5, 2};
    const auto a = static_cast<std::size_t>(axis < 0 ? axis + 4 : axis);
    const Tensor x = rng.floats(shape, -2.0F, 2.0F);
    Tensor scale(DType::kFloat32, {shape[a]});
    Tensor zp(DType::kUInt8, {shape[a]});
    for (std::int64_t c = 0; c < shape[a]; ++c) {
      scale.data_as<float>()[c] = 0.01F * static_cast<float>(c + 1);
      zp.data_as<std::uint8_t>()[c] = static_cast<std::uint8_t>(100 + 10 * c);
    }
    Tensor q(DType::kUInt8, shape);
    quantize_linear(x, scale, zp, axis, q);
    Tensor back(DType::kFloat32, shape);
    dequantize_linear(q, scale, zp, axis, back);
    for (std::int64_t i = 0; i < x.size(); ++i) {
      std::int64_t c = i;
      for (std::size_t d = shape.size() - 1; d > a; --d) c /= shape[d];
      c %= shape[a];
      const double s = scale.data_as<float>()[c];
      const double z = zp.data_as<std::uint8_t>()[c];
      const double want_q = std::clamp(round_even(x.data_as<float>()[i] / s) + z, 0.0, 255.0);
      ASSERT_EQ(q.data_as<std::uint8_t>()[i], static_cast<std::uint8_t>(want_q))
          << "axis " << axis << " at " << i;
      ASSERT_NEAR(back.data_as<float>()[i], (want_q - z) * s, 1e-6);
    }
  }
}

TEST(DequantizeLinear, Int32AndInt8) {
  Tensor x(DType::kInt32, {3});
  const std::int32_t values[] = {-1000, 0, 70000};
  std::copy(values, values + 3, x.data_as<std::int32_t>());
  Tensor scale(DType::kFloat32, {1});
  *scale.data_as<float>() = 0.5F;
  Tensor y(DType::kFloat32, {3});
  dequantize_linear(x, scale, std::nullopt, 1, y);
  EXPECT_EQ(y.data_as<float>()[0], -500.0F);
  EXPECT_EQ(y.data_as<float>()[2], 35000.0F);
  Tensor i8(DType::kInt8, {2});
  i8.data_as<std::int8_t>()[0] = -128;
  i8.data_as<std::int8_t>()[1] = 127;
  Tensor zp(DType::kInt8, {});
  *zp.data_as<std::int8_t>() = -128;
  Tensor out(DType::kFloat32, {2});
  dequantize_linear(i8, scale, zp, 1, out);
  EXPECT_EQ(out.data_as<float>()[0], 0.0F);
  EXPECT_EQ(out.data_as<float>()[1], 127.5F);
}

TEST(Quantize, RejectsBadParameters) {
  const Tensor x = rng.floats({2, 3}, -1.0F, 1.0F);
  Tensor scale(DType::kFloat32, {4});
  Tensor y(DType::kUInt8, {2, 3});
  expect_throws_naming([&] { quantize_linear(x, scale, std::nullopt, 1, y); },
                       "QuantizeLinear: scale has 4 values but axis 1 of [2,3] has 3");
  Tensor f(DType::kFloat32, {2, 3});
  Tensor s1(DType::kFloat32, {});
  expect_throws_naming([&] { quantize_linear(x, s1, std::nullopt, 1, f); },
                       "QuantizeLinear: output must be int8 or uint8");
  Tensor zp(DType::kInt8, {});
  expect_throws_naming([&] { quantize_linear(x, s1, zp, 1, y); },
                       "QuantizeLinear: zero_point has dtype int8");
  expect_throws_naming([&] { dequantize_linear(x, s1, std::nullopt, 1, f); },
                       "DequantizeLinear: input must be int8, uint8 or int32");
  Tensor y_bad(DType::kUInt8, {3});
  expect_throws_naming([&] { dynamic_quantize_linear(x, y_bad); },
                       "DynamicQuantizeLinear: output has shape [3]");
}

}  // namespace
}  // namespace yolo::runtime::kernels
