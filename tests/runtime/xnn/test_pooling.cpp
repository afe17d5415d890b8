// SPDX-License-Identifier: Apache-2.0
// MaxPool2dF32, AvgPool2dF32 (both count_include_pad modes) and GlobalAvgPoolF32 against naive
// NHWC references, with channel slices, 1 and 2 threads and re-setup.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "runtime/xnn/pooling.h"
#include "tests/runtime/xnn/window_taps.h"
#include "tests/support/random_tensors.h"

namespace yolo::runtime::xnn {
namespace {

using yolo::test::for_each_tap;

using test::xnn_input;

constexpr float kSentinel = -12345.0f;

enum class Kind { kMax, kAverageExcludePad, kAverageIncludePad };

struct PoolCase {
  Pool2dParams params;
  Kind kind = Kind::kMax;
  size_t batch = 1;
  size_t height = 1;
  size_t width = 1;
  size_t input_offset = 0;
  size_t output_offset = 0;
};

std::vector<float> reference_pool(const PoolCase& c, const std::vector<float>& input, size_t out_h,
                                  size_t out_w) {
  const Pool2dParams& p = c.params;
  std::vector<float> out(c.batch * out_h * out_w * p.channels);
  for (size_t n = 0; n < c.batch; ++n) {
    for (size_t oy = 0; oy < out_h; ++oy) {
      for (size_t ox = 0; ox < out_w; ++ox) {
        for (size_t ch = 0; ch < p.channels; ++ch) {
          double max = -std::numeric_limits<double>::infinity();
          double sum = 0.0;
          size_t count = 0;
          for_each_tap(
              p.window, oy, ox, c.height, c.width, [&](size_t, size_t, size_t iy, size_t ix) {
                const double v = input[((n * c.height + iy) * c.width + ix) * p.input_pixel_stride +
                                       c.input_offset + ch];
                max = std::max(max, v);
                sum += v;
                ++count;
              });
          double value = 0.0;
          switch (c.kind) {
            case Kind::kMax:
              value = max;
              break;
            case Kind::kAverageExcludePad:
              value = sum / double(count);
              break;
            case Kind::kAverageIncludePad:
              value = sum / double(p.window.kernel_height * p.window.kernel_width);
              break;
          }
          out[((n * out_h + oy) * out_w + ox) * p.channels + ch] =
              float(std::clamp<double>(value, p.output_min, p.output_max));
        }
      }
    }
  }
  return out;
}

void check_pool(PoolCase c, std::mt19937& rng, ThreadPools& pools) {
  Pool2dParams& p = c.params;
  if (p.input_pixel_stride == 0) p.input_pixel_stride = p.channels + c.input_offset + 1;
  if (p.output_pixel_stride == 0) p.output_pixel_stride = p.channels + c.output_offset + 2;
  SCOPED_TRACE(testing::Message() << "kind " << int(c.kind) << " N" << c.batch << " " << c.height
                                  << "x" << c.width << " C" << p.channels << " k"
                                  << p.window.kernel_height << "x" << p.window.kernel_width << " s"
                                  << p.window.stride_height << "," << p.window.stride_width << " d"
                                  << p.window.dilation_height << "," << p.window.dilation_width
                                  << " pads " << p.window.pad_top << " " << p.window.pad_left << " "
                                  << p.window.pad_bottom << " " << p.window.pad_right);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> input = xnn_input<float>(c.batch * c.height * c.width * p.input_pixel_stride);
  for (float& v : input) v = dist(rng);

  auto run = [&](auto& op, int threads, std::vector<float>& output) {
    pthreadpool_t pool = pools.get(threads);
    op.setup(c.batch, c.height, c.width, input.data() + c.input_offset,
             output.data() + c.output_offset, pool);
    op.run(pool);
  };
  auto check_with = [&](auto& op) {
    const size_t out_h = op.output_height(c.height);
    const size_t out_w = op.output_width(c.width);
    const std::vector<float> want = reference_pool(c, input, out_h, out_w);
    std::vector<float> first;
    for (int threads : {1, 2}) {
      std::vector<float> output(c.batch * out_h * out_w * p.output_pixel_stride, kSentinel);
      run(op, threads, output);
      for (size_t pixel = 0; pixel < c.batch * out_h * out_w; ++pixel) {
        for (size_t ch = 0; ch < p.output_pixel_stride; ++ch) {
          const float got = output[pixel * p.output_pixel_stride + ch];
          if (ch < c.output_offset || ch >= c.output_offset + p.channels) {
            ASSERT_EQ(got, kSentinel) << "pixel " << pixel << " channel " << ch << " outside";
          } else {
            const float expected = want[pixel * p.channels + ch - c.output_offset];
            ASSERT_NEAR(got, expected, 1e-5f)
                << "threads " << threads << " pixel " << pixel << " channel " << ch;
          }
        }
      }
      if (first.empty()) {
        first = output;
      } else {
        EXPECT_EQ(first, output) << "1 and 2 threads disagree";
      }
    }
  };
  if (c.kind == Kind::kMax) {
    MaxPool2dF32 op(p, "maxpool_under_test");
    check_with(op);
  } else {
    AvgPool2dF32 op(p, c.kind == Kind::kAverageIncludePad, "avgpool_under_test");
    check_with(op);
  }
}

PoolCase square(Kind kind, size_t channels, uint32_t k, uint32_t s, uint32_t pad, size_t size) {
  PoolCase c;
  c.kind = kind;
  c.params.channels = channels;
  c.params.window = kernels::square_window(k, s, pad);
  c.height = c.width = size;
  return c;
}

// `c` over a batch of two, read from and written into channel slices of wider tensors.
PoolCase batched_in_slices(PoolCase c, size_t input_offset, size_t output_offset) {
  c.batch = 2;
  c.input_offset = input_offset;
  c.output_offset = output_offset;
  return c;
}

TEST(MaxPool2dF32, NamedCases) {
  std::mt19937 rng(21);
  ThreadPools pools;
  check_pool(square(Kind::kMax, 32, 5, 1, 2, 20), rng, pools);  // YOLOv8 SPPF
  check_pool(square(Kind::kMax, 13, 2, 2, 0, 9), rng, pools);   // downsample, odd size
  check_pool(square(Kind::kMax, 1, 3, 2, 1, 7), rng, pools);    // one channel
  check_pool(square(Kind::kMax, 5, 3, 1, 1, 1), rng, pools);    // 1x1 image
  PoolCase asym = square(Kind::kMax, 6, 3, 1, 0, 8);
  asym.params.window.pad_top = 2;
  asym.params.window.pad_right = 1;
  asym.params.window.stride_width = 2;
  check_pool(batched_in_slices(asym, 3, 4), rng, pools);
  PoolCase dilated = square(Kind::kMax, 4, 3, 1, 0, 9);
  dilated.params.window.dilation_height = 2;
  dilated.params.window.dilation_width = 3;
  check_pool(dilated, rng, pools);
  dilated.params.window.pad_left = 1;
  EXPECT_THROW(MaxPool2dF32(dilated.params, "dilated_padded"), std::invalid_argument);
  PoolCase clamped = square(Kind::kMax, 9, 2, 1, 0, 5);
  clamped.params.output_min = 0.0f;
  check_pool(clamped, rng, pools);
}

TEST(AvgPool2dF32, BothPaddingConventions) {
  std::mt19937 rng(22);
  ThreadPools pools;
  for (Kind kind : {Kind::kAverageExcludePad, Kind::kAverageIncludePad}) {
    check_pool(square(kind, 16, 3, 1, 1, 10), rng, pools);
    check_pool(square(kind, 7, 2, 2, 0, 9), rng, pools);
    check_pool(square(kind, 1, 3, 2, 1, 5), rng, pools);
    check_pool(square(kind, 3, 3, 1, 1, 1), rng, pools);
    PoolCase asym = square(kind, 10, 3, 2, 0, 7);
    asym.params.window.kernel_width = 2;
    asym.params.window.pad_top = 1;
    asym.params.window.pad_right = 1;
    check_pool(batched_in_slices(asym, 2, 1), rng, pools);
  }
  Pool2dParams dilated{.window = {.kernel_height = 2, .kernel_width = 2, .dilation_height = 2},
                       .channels = 3};
  EXPECT_THROW(AvgPool2dF32(dilated, false, "dilated"), std::invalid_argument);
}

TEST(Pool2dF32, RandomShapes) {
  std::mt19937 rng(23);
  ThreadPools pools;
  for (int trial = 0; trial < 60; ++trial) {
    PoolCase c;
    c.kind = static_cast<Kind>(trial % 3);
    Pool2dParams& p = c.params;
    p.window.kernel_height = 1 + rng() % 4;
    p.window.kernel_width = 2 + rng() % 3;
    p.window.stride_height = 1 + rng() % 3;
    p.window.stride_width = 1 + rng() % 3;
    if (c.kind == Kind::kMax) {
      p.window.dilation_height = 1 + rng() % 2;
      p.window.dilation_width = 1 + rng() % 2;
    }
    // Dilated max pooling is tested without padding (the combination is rejected).
    if (p.window.dilation_height == 1 && p.window.dilation_width == 1) {
      p.window.pad_top = rng() % p.window.kernel_height;
      p.window.pad_bottom = rng() % p.window.kernel_height;
      p.window.pad_left = rng() % p.window.kernel_width;
      p.window.pad_right = rng() % p.window.kernel_width;
    }
    p.channels = 1 + rng() % 20;
    c.batch = 1 + rng() % 2;
    c.height = p.window.dilation_height * (p.window.kernel_height - 1) + 1 + rng() % 8;
    c.width = p.window.dilation_width * (p.window.kernel_width - 1) + 1 + rng() % 8;
    c.input_offset = rng() % 3;
    c.output_offset = rng() % 3;
    check_pool(c, rng, pools);
  }
}

TEST(Pool2dF32, SetupAgainAfterTheInputSizeChanges) {
  ThreadPools pools;
  MaxPool2dF32 pool(
      {.window = {.kernel_height = 2, .kernel_width = 2, .stride_height = 2, .stride_width = 2},
       .channels = 2},
      "resized");
  for (size_t size : {4u, 6u, 2u}) {
    std::vector<float> input = xnn_input<float>(size * size * 2);
    for (size_t i = 0; i < input.size(); ++i) input[i] = float(i);
    std::vector<float> output(size / 2 * size / 2 * 2);
    pool.setup(1, size, size, input.data(), output.data(), pools.get(2));
    pool.run(pools.get(2));
    // The max of each 2x2 window is its bottom-right pixel.
    for (size_t oy = 0; oy < size / 2; ++oy) {
      for (size_t ox = 0; ox < size / 2; ++ox) {
        for (size_t ch = 0; ch < 2; ++ch) {
          EXPECT_EQ(output[(oy * size / 2 + ox) * 2 + ch],
                    input[((2 * oy + 1) * size + 2 * ox + 1) * 2 + ch]);
        }
      }
    }
  }
  EXPECT_THROW(
      MaxPool2dF32({.window = {.kernel_height = 1, .kernel_width = 1}, .channels = 2}, "one"),
      std::invalid_argument);
}

TEST(GlobalAvgPoolF32, MeansEachChannelOfEachImage) {
  std::mt19937 rng(24);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  ThreadPools pools;
  for (size_t channels : {1u, 7u, 64u}) {
    const size_t batch = 2;
    const size_t pixels = 37;
    const size_t in_stride = channels + 3;
    const size_t out_stride = channels + 2;
    std::vector<float> input = xnn_input<float>(batch * pixels * in_stride);
    for (float& v : input) v = dist(rng);
    GlobalAvgPoolF32 pool(channels, in_stride, out_stride, "gap");
    for (int threads : {1, 2}) {
      std::vector<float> output(batch * out_stride, kSentinel);
      pool.setup(batch, pixels, input.data(), output.data(), pools.get(threads));
      pool.run(pools.get(threads));
      for (size_t n = 0; n < batch; ++n) {
        for (size_t ch = 0; ch < out_stride; ++ch) {
          if (ch >= channels) {
            EXPECT_EQ(output[n * out_stride + ch], kSentinel);
            continue;
          }
          double sum = 0.0;
          for (size_t p = 0; p < pixels; ++p) sum += input[(n * pixels + p) * in_stride + ch];
          EXPECT_NEAR(output[n * out_stride + ch], sum / pixels, 1e-5) << "channel " << ch;
        }
      }
    }
  }
}

}  // namespace
}  // namespace yolo::runtime::xnn
