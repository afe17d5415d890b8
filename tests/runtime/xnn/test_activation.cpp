// SPDX-License-Identifier: Apache-2.0
// silu_f32 and sigmoid_f32: accuracy against a double-precision reference, extreme inputs,
// strided and in-place layouts, thread agreement, and speed against XNNPACK.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "runtime/xnn/activation.h"
#include "runtime/xnn/binary.h"
#include "runtime/xnn/unary.h"
#include "runtime/xnn/xnn_operator.h"
#include "tests/support/random_tensors.h"

namespace yolo::runtime::xnn {
namespace {

using test::xnn_input;

double silu_reference(double x) {
  return x / (1.0 + std::exp(-x));
}
double sigmoid_reference(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}

// Every float step of 1/1024 over [-80, 80] plus random values.
std::vector<float> sweep() {
  std::vector<float> values;
  for (int i = -80 * 1024; i <= 80 * 1024; ++i) values.push_back(static_cast<float>(i) / 1024.0f);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-80.0f, 80.0f);
  for (int i = 0; i < 100000; ++i) values.push_back(dist(rng));
  return values;
}

double relative_error(double got, double want) {
  if (want == 0.0) return std::fabs(got);
  return std::fabs(got - want) / std::fabs(want);
}

TEST(SiluF32, AccurateToOneMillionthOverTheUsefulRange) {
  const std::vector<float> input = sweep();
  std::vector<float> silu(input.size());
  silu_f32(1, input.size(), input.data(), input.size(), silu.data(), input.size(), nullptr);
  double worst = 0.0;
  float worst_x = 0.0f;
  for (size_t i = 0; i < input.size(); ++i) {
    const double e = relative_error(silu[i], silu_reference(input[i]));
    if (e > worst) {
      worst = e;
      worst_x = input[i];
    }
  }
  std::printf("max relative error of silu over [-80, 80]: %.3g (at x = %g)\n", worst, worst_x);
  EXPECT_LT(worst, 1e-6) << "at x = " << worst_x;

  std::vector<float> sigmoid(input.size());
  sigmoid_f32(1, input.size(), input.data(), input.size(), sigmoid.data(), input.size(), nullptr);
  double worst_sigmoid = 0.0;
  for (size_t i = 0; i < input.size(); ++i) {
    worst_sigmoid =
        std::max(worst_sigmoid, relative_error(sigmoid[i], sigmoid_reference(input[i])));
  }
  std::printf("max relative error of sigmoid over [-80, 80]: %.3g\n", worst_sigmoid);
  EXPECT_LT(worst_sigmoid, 1e-6);
}

TEST(SiluF32, ExtremeInputsStayFinite) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> input = {0.0f,   -0.0f,  87.5f,   88.8f,  100.0f, 1e10f, 3e38f,
                                    -87.5f, -88.8f, -100.0f, -1e10f, -3e38f, inf,   -inf};
  std::vector<float> silu(input.size());
  std::vector<float> sigmoid(input.size());
  silu_f32(input.size(), 1, input.data(), 1, silu.data(), 1, nullptr);
  sigmoid_f32(input.size(), 1, input.data(), 1, sigmoid.data(), 1, nullptr);
  for (size_t i = 0; i < input.size(); ++i) {
    const float x = input[i];
    SCOPED_TRACE(x);
    if (x > 0.0f) {
      EXPECT_EQ(silu[i], x);
      EXPECT_EQ(sigmoid[i], 1.0f);
    } else if (x < -80.0f) {
      EXPECT_LE(silu[i], 0.0f);
      EXPECT_GT(silu[i], -2e-36f);
      EXPECT_GE(sigmoid[i], 0.0f);
      EXPECT_LT(sigmoid[i], 2e-35f);
    } else {
      EXPECT_EQ(silu[i], 0.0f);
      EXPECT_EQ(sigmoid[i], 0.5f);
    }
  }
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const float x : {nan, -nan}) {
    float out = 0.0f;
    silu_f32(1, 1, &x, 1, &out, 1, nullptr);
    EXPECT_TRUE(std::isnan(out));
    sigmoid_f32(1, 1, &x, 1, &out, 1, nullptr);
    EXPECT_TRUE(std::isnan(out));
  }
}

// Writes channels [offset, offset + channels) of a wider output from a slice of a wider input,
// at 1 and 2 threads and in place; neighbours must be untouched and all runs identical.
TEST(SiluF32, StridedSlicesInPlaceAndThreads) {
  ThreadPools pools;
  std::mt19937 rng(12);
  std::uniform_real_distribution<float> dist(-8.0f, 8.0f);
  struct Layout {
    size_t pixels, channels, input_stride, input_offset, output_stride, output_offset;
  };
  for (const Layout& l : {Layout{3, 5, 9, 2, 7, 1}, Layout{6400, 48, 64, 16, 96, 40},
                          Layout{2000, 13, 13, 0, 13, 0}, Layout{1, 1, 1, 0, 1, 0}}) {
    SCOPED_TRACE(testing::Message() << l.pixels << " pixels x " << l.channels << " channels");
    std::vector<float> input(l.pixels * l.input_stride);
    for (float& v : input) v = dist(rng);
    std::vector<float> reference;
    for (int threads : {1, 2}) {
      for (bool silu : {true, false}) {
        auto kernel = silu ? silu_f32 : sigmoid_f32;
        std::vector<float> output(l.pixels * l.output_stride, -7.0f);
        kernel(l.pixels, l.channels, input.data() + l.input_offset, l.input_stride,
               output.data() + l.output_offset, l.output_stride, pools.get(threads));
        for (size_t p = 0; p < l.pixels; ++p) {
          for (size_t c = 0; c < l.output_stride; ++c) {
            const float got = output[p * l.output_stride + c];
            if (c < l.output_offset || c >= l.output_offset + l.channels) {
              ASSERT_EQ(got, -7.0f) << "pixel " << p << " channel " << c << " outside the slice";
              continue;
            }
            const double x = input[p * l.input_stride + l.input_offset + c - l.output_offset];
            const double want = silu ? silu_reference(x) : sigmoid_reference(x);
            ASSERT_LT(relative_error(got, want), 1e-6) << "pixel " << p << " channel " << c;
          }
        }
        // In place over the input layout gives the same values as out of place.
        std::vector<float> in_place = input;
        kernel(l.pixels, l.channels, in_place.data() + l.input_offset, l.input_stride,
               in_place.data() + l.input_offset, l.input_stride, pools.get(threads));
        for (size_t p = 0; p < l.pixels; ++p) {
          for (size_t c = 0; c < l.channels; ++c) {
            ASSERT_EQ(in_place[p * l.input_stride + l.input_offset + c],
                      output[p * l.output_stride + l.output_offset + c]);
          }
        }
        if (threads == 1 && silu) reference = output;
        if (threads == 2 && silu) {
          EXPECT_EQ(reference, output) << "1 and 2 threads disagree";
        }
      }
    }
  }
}

}  // namespace
}  // namespace yolo::runtime::xnn
