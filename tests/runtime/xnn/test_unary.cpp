// SPDX-License-Identifier: Apache-2.0
// UnaryF32, CopyX32 and the int8 converts against naive references, over strided rows.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include "runtime/xnn/unary.h"
#include "tests/support/random_tensors.h"

namespace yolo::runtime::xnn {
namespace {

using test::xnn_input;

constexpr float kSentinel = -12345.0f;

struct Layout {
  size_t rows, channels, input_stride, output_stride;
};

constexpr Layout kLayouts[] = {{1, 1, 1, 1},      {7, 13, 13, 13},    {33, 5, 9, 7},
                               {400, 64, 80, 96}, {6400, 32, 32, 32}, {3, 100, 128, 100}};

// Runs `op` over every layout at 1 and 2 threads and compares each value with `want(x)`, and the
// padding between rows with the sentinel.
void check_unary(const std::function<UnaryF32(const Layout&)>& make,
                 const std::function<double(double)>& want, float lo, float hi, double tolerance) {
  std::mt19937 rng(41);
  std::uniform_real_distribution<float> dist(lo, hi);
  ThreadPools pools;
  for (const Layout& l : kLayouts) {
    SCOPED_TRACE(testing::Message() << l.rows << " rows x " << l.channels << " strides "
                                    << l.input_stride << "/" << l.output_stride);
    std::vector<float> input = xnn_input<float>(l.rows * l.input_stride);
    for (float& v : input) v = dist(rng);
    UnaryF32 op = make(l);
    for (int threads : {1, 2}) {
      std::vector<float> output(l.rows * l.output_stride, kSentinel);
      op.setup(l.rows, input.data(), output.data(), pools.get(threads));
      op.run(pools.get(threads));
      for (size_t r = 0; r < l.rows; ++r) {
        for (size_t c = 0; c < l.output_stride; ++c) {
          const float got = output[r * l.output_stride + c];
          if (c >= l.channels) {
            ASSERT_EQ(got, kSentinel) << "row " << r << " channel " << c;
            continue;
          }
          const double expected = want(input[r * l.input_stride + c]);
          ASSERT_NEAR(got, expected, tolerance * std::max(1.0, std::fabs(expected)))
              << "threads " << threads << " row " << r << " channel " << c << " x "
              << input[r * l.input_stride + c];
        }
      }
    }
  }
}

// The same for the ops made from channels, strides and a name only.
using MakeUnary = UnaryF32 (*)(size_t, size_t, size_t, std::string);
void check_unary(MakeUnary make, const char* name, const std::function<double(double)>& want,
                 float lo, float hi, double tolerance) {
  check_unary(
      [&](const Layout& l) { return make(l.channels, l.input_stride, l.output_stride, name); },
      want, lo, hi, tolerance);
}

TEST(UnaryF32, Sigmoid) {
  check_unary(
      &UnaryF32::sigmoid, "sigmoid", [](double x) { return 1.0 / (1.0 + std::exp(-x)); }, -20.0f,
      20.0f, 1e-6);
}

TEST(UnaryF32, ClampAsReluAndClip) {
  check_unary(
      [](const Layout& l) {
        return UnaryF32::clamp(l.channels, l.input_stride, l.output_stride, 0.0f,
                               std::numeric_limits<float>::infinity(), "relu");
      },
      [](double x) { return std::max(x, 0.0); }, -5.0f, 5.0f, 0.0);
  check_unary(
      [](const Layout& l) {
        return UnaryF32::clamp(l.channels, l.input_stride, l.output_stride, -1.5f, 2.0f, "clip");
      },
      [](double x) { return std::clamp(x, -1.5, 2.0); }, -5.0f, 5.0f, 0.0);
}

TEST(UnaryF32, LeakyReluAndHardSwish) {
  check_unary(
      [](const Layout& l) {
        return UnaryF32::leaky_relu(l.channels, l.input_stride, l.output_stride, 0.1f, "leaky");
      },
      [](double x) { return x < 0 ? 0.1f * x : x; }, -5.0f, 5.0f, 1e-6);
  check_unary(
      &UnaryF32::hardswish, "hardswish",
      [](double x) { return x * std::clamp(x + 3.0, 0.0, 6.0) / 6.0; }, -5.0f, 5.0f, 1e-6);
}

TEST(UnaryF32, ElementwiseMath) {
  check_unary(
      &UnaryF32::abs, "abs", [](double x) { return std::fabs(x); }, -5.0f, 5.0f, 0.0);
  check_unary(
      &UnaryF32::negate, "neg", [](double x) { return -x; }, -5.0f, 5.0f, 0.0);
  check_unary(
      &UnaryF32::square_root, "sqrt", [](double x) { return std::sqrt(x); }, 0.0f, 100.0f, 1e-7);
  check_unary(
      &UnaryF32::floor, "floor", [](double x) { return std::floor(x); }, -5.0f, 5.0f, 0.0);
  check_unary(
      &UnaryF32::ceiling, "ceil", [](double x) { return std::ceil(x); }, -5.0f, 5.0f, 0.0);
}

TEST(UnaryF32, SoftmaxOverEachRow) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-10.0f, 10.0f);
  ThreadPools pools;
  for (const Layout& l : kLayouts) {
    std::vector<float> input = xnn_input<float>(l.rows * l.input_stride);
    for (float& v : input) v = dist(rng);
    UnaryF32 softmax = UnaryF32::softmax(l.channels, l.input_stride, l.output_stride, "softmax");
    for (int threads : {1, 2}) {
      std::vector<float> output(l.rows * l.output_stride, kSentinel);
      softmax.setup(l.rows, input.data(), output.data(), pools.get(threads));
      softmax.run(pools.get(threads));
      for (size_t r = 0; r < l.rows; ++r) {
        const float* x = &input[r * l.input_stride];
        const double max = *std::max_element(x, x + l.channels);
        double sum = 0.0;
        for (size_t c = 0; c < l.channels; ++c) sum += std::exp(x[c] - max);
        for (size_t c = 0; c < l.output_stride; ++c) {
          const float got = output[r * l.output_stride + c];
          if (c >= l.channels) {
            ASSERT_EQ(got, kSentinel);
          } else {
            ASSERT_NEAR(got, std::exp(x[c] - max) / sum, 1e-6) << "row " << r << " channel " << c;
          }
        }
      }
    }
  }
}

// A channel slice out of a wide tensor and into another: what Split and Concat need.
TEST(CopyX32, MovesChannelSlicesBetweenWideTensors) {
  ThreadPools pools;
  const size_t rows = 500, in_stride = 48, out_stride = 40, channels = 20;
  std::vector<float> input = xnn_input<float>(rows * in_stride);
  for (size_t i = 0; i < input.size(); ++i) input[i] = float(i);
  CopyX32 copy(channels, in_stride, out_stride, "split");
  for (int threads : {1, 2}) {
    std::vector<float> output(rows * out_stride, kSentinel);
    copy.setup(rows, input.data() + 16, output.data() + 8, pools.get(threads));
    copy.run(pools.get(threads));
    for (size_t r = 0; r < rows; ++r) {
      for (size_t c = 0; c < out_stride; ++c) {
        const bool inside = c >= 8 && c < 8 + channels;
        ASSERT_EQ(output[r * out_stride + c],
                  inside ? input[r * in_stride + 16 + c - 8] : kSentinel)
            << "row " << r << " channel " << c;
      }
    }
  }
  std::vector<int32_t> ints = xnn_input<int32_t>(6);
  for (size_t i = 0; i < 6; ++i) ints[i] = (i % 2 ? -1 : 1) * int32_t(i + 1);
  std::vector<int32_t> copied(6, 0);
  CopyX32 int_copy(3, 3, 3, "ints");
  int_copy.setup(2, ints.data(), copied.data(), nullptr);
  int_copy.run(nullptr);
  EXPECT_EQ(copied, ints);
  EXPECT_THROW(CopyX32(5, 4, 5, "narrow"), std::invalid_argument);
}

TEST(ConvertQS8, RoundTripsWithScaleAndZeroPoint) {
  ThreadPools pools;
  const QuantParams q{.scale = 0.05f, .zero_point = -3};
  const size_t rows = 300, channels = 17, f_stride = 20, q_stride = 19;
  std::mt19937 rng(43);
  std::uniform_real_distribution<float> dist(-8.0f, 8.0f);  // beyond the int8 range: saturates
  std::vector<float> input = xnn_input<float>(rows * f_stride);
  for (float& v : input) v = dist(rng);
  ConvertF32ToQS8 quantize(channels, f_stride, q_stride, q, "quantize");
  ConvertQS8ToF32 dequantize(channels, q_stride, f_stride, q, "dequantize");
  for (int threads : {1, 2}) {
    std::vector<int8_t> quantized = xnn_input<int8_t>(rows * q_stride, 99);
    quantize.setup(rows, input.data(), quantized.data(), pools.get(threads));
    quantize.run(pools.get(threads));
    std::vector<float> restored(rows * f_stride, kSentinel);
    dequantize.setup(rows, quantized.data(), restored.data(), pools.get(threads));
    dequantize.run(pools.get(threads));
    for (size_t r = 0; r < rows; ++r) {
      for (size_t c = 0; c < q_stride; ++c) {
        const int8_t got = quantized[r * q_stride + c];
        if (c >= channels) {
          ASSERT_EQ(got, 99);
          continue;
        }
        const float x = input[r * f_stride + c];
        const long want = std::clamp<long>(std::lrint(x / q.scale) + q.zero_point, -128, 127);
        ASSERT_EQ(got, want) << "x " << x;
        ASSERT_FLOAT_EQ(restored[r * f_stride + c], q.scale * float(want - q.zero_point));
      }
      ASSERT_EQ(restored[r * f_stride + channels], kSentinel);
    }
  }
}

}  // namespace
}  // namespace yolo::runtime::xnn
