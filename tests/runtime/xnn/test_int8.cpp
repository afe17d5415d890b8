// SPDX-License-Identifier: Apache-2.0
// The INT8 wrappers against naive references computed in double: per-channel int8 convolution
// (within one quantisation step), int8 add/subtract/multiply with broadcasting, int8 max pooling
// (exact) and the 256-entry lookup table.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "runtime/xnn/int8.h"
#include "tests/runtime/xnn/window_taps.h"

namespace yolo::runtime::xnn {
namespace {

using yolo::test::for_each_tap;

int8_t quantize(double real, QuantParams q, int lo = -128, int hi = 127) {
  return static_cast<int8_t>(std::clamp<long>(std::lrint(real / q.scale) + q.zero_point, lo, hi));
}

std::vector<int8_t> random_int8(size_t n, std::mt19937& rng, int lo = -128, int hi = 127) {
  std::uniform_int_distribution<int> dist(lo, hi);
  // XNNPACK may read up to kExtraInputBytes past the end of an input: reserve them.
  std::vector<int8_t> values;
  values.reserve(n + kExtraInputBytes);
  values.resize(n);
  for (int8_t& v : values) v = static_cast<int8_t>(dist(rng));
  return values;
}

void check_conv_qc8(Conv2dParams g, size_t height, size_t width, bool relu, std::mt19937& rng,
                    ThreadPools& pools) {
  SCOPED_TRACE(testing::Message() << height << "x" << width << " Cin " << g.input_channels
                                  << " Cout " << g.output_channels << " k" << g.window.kernel_height
                                  << " s" << g.window.stride_height << " g" << g.groups);
  const size_t in_offset = 1, out_offset = 2;
  g.input_pixel_stride = g.input_channels + in_offset + 1;
  g.output_pixel_stride = g.output_channels + out_offset + 3;
  const size_t gi = g.input_channels / g.groups;
  const size_t go = g.output_channels / g.groups;
  const size_t ks = size_t{g.window.kernel_height} * g.window.kernel_width;
  Conv2dQC8Params params{.geometry = g,
                         .input = {.scale = 0.02f, .zero_point = -7},
                         // Sums spread over about +-40 output steps.
                         .output = {.scale = 0.027f * std::sqrt(float(gi * ks)), .zero_point = 5}};
  if (relu) params.output_min = params.output.zero_point;
  const std::vector<int8_t> weights = random_int8(g.output_channels * gi * ks, rng, -127, 127);
  std::vector<float> weight_scales(g.output_channels);
  std::uniform_real_distribution<float> scale_dist(0.005f, 0.015f);
  for (float& s : weight_scales) s = scale_dist(rng);
  std::vector<int32_t> bias(g.output_channels);
  for (int32_t& b : bias) b = static_cast<int32_t>(rng() % 2001) - 1000;
  const std::vector<int8_t> input = random_int8(height * width * g.input_pixel_stride, rng);

  Conv2dQC8 conv(params, weights, weight_scales, bias, "qconv");
  const size_t oh = conv.output_height(height), ow = conv.output_width(width);
  size_t saturated = 0;
  for (int threads : {1, 2}) {
    std::vector<int8_t> output(oh * ow * g.output_pixel_stride, 77);
    conv.setup(1, height, width, input.data() + in_offset, output.data() + out_offset,
               pools.get(threads));
    conv.run(pools.get(threads));
    for (size_t oy = 0; oy < oh; ++oy) {
      for (size_t ox = 0; ox < ow; ++ox) {
        for (size_t oc = 0; oc < g.output_channels; ++oc) {
          const size_t group = oc / go;
          int64_t acc = bias[oc];
          for_each_tap(
              g.window, oy, ox, height, width, [&](size_t ky, size_t kx, size_t iy, size_t ix) {
                for (size_t ic = 0; ic < gi; ++ic) {
                  const int x =
                      input[(iy * width + ix) * g.input_pixel_stride + in_offset + group * gi + ic];
                  acc += int64_t(x - params.input.zero_point) *
                         weights[((oc * gi + ic) * g.window.kernel_height + ky) *
                                     g.window.kernel_width +
                                 kx];
                }
              });
          const double real = double(acc) * params.input.scale * weight_scales[oc];
          const int want = quantize(real, params.output, params.output_min, params.output_max);
          const int got = output[(oy * ow + ox) * g.output_pixel_stride + out_offset + oc];
          saturated += want == 127 || want == params.output_min;
          ASSERT_LE(std::abs(got - want), 1)
              << "threads " << threads << " at " << oy << "," << ox << " channel " << oc;
        }
        const int8_t* pixel = &output[(oy * ow + ox) * g.output_pixel_stride];
        ASSERT_EQ(pixel[0], 77);
        ASSERT_EQ(pixel[out_offset + g.output_channels], 77);
      }
    }
  }
  // Mostly unsaturated outputs, or the comparison would prove little (Relu clamps half).
  EXPECT_LE(saturated, (relu ? 0.8 : 0.1) * 2 * oh * ow * g.output_channels);
}

TEST(Conv2dQC8, MatchesReferenceWithinOneStep) {
  std::mt19937 rng(51);
  ThreadPools pools;
  auto conv = [](size_t cin, size_t cout, uint32_t k, uint32_t s, uint32_t pad, uint32_t groups) {
    return Conv2dParams{.window = kernels::square_window(k, s, pad),
                        .groups = groups,
                        .input_channels = cin,
                        .output_channels = cout};
  };
  check_conv_qc8(conv(16, 24, 1, 1, 0, 1), 7, 9, false, rng, pools);
  check_conv_qc8(conv(13, 8, 3, 2, 1, 1), 9, 8, true, rng, pools);
  check_conv_qc8(conv(24, 24, 3, 1, 1, 24), 6, 6, false, rng, pools);  // depthwise
  check_conv_qc8(conv(8, 12, 3, 1, 1, 4), 5, 7, false, rng, pools);    // grouped
  check_conv_qc8(conv(3, 5, 3, 1, 1, 1), 1, 1, true, rng, pools);      // 1x1 image
}

void check_binary_qs8(BinaryOp op, const std::vector<size_t>& a_shape,
                      const std::vector<size_t>& b_shape, std::mt19937& rng, ThreadPools& pools) {
  const QuantParams qa{.scale = 0.05f, .zero_point = 3};
  const QuantParams qb{.scale = 0.08f, .zero_point = -10};
  const QuantParams qo{.scale = op == BinaryOp::kMultiply ? 0.2f : 0.1f, .zero_point = -2};
  size_t na = 1, nb = 1;
  for (size_t d : a_shape) na *= d;
  for (size_t d : b_shape) nb *= d;
  const std::vector<int8_t> a = random_int8(na, rng), b = random_int8(nb, rng);
  // Both test shapes broadcast b along a's leading axes or its inner axis of size 1.
  const size_t inner = a_shape.back();
  BinaryQS8 binary(op, qa, qb, qo, "qbinary");
  for (int threads : {1, 2}) {
    std::vector<int8_t> out(na);
    binary.setup(a_shape, b_shape, a.data(), b.data(), out.data(), pools.get(threads));
    binary.run(pools.get(threads));
    for (size_t i = 0; i < na; ++i) {
      const size_t j = nb == na ? i : (b_shape.back() == 1 ? (i / inner) % nb : i % nb);
      const double x = qa.scale * (a[i] - qa.zero_point);
      const double y = qb.scale * (b[j] - qb.zero_point);
      const double real = op == BinaryOp::kAdd ? x + y : op == BinaryOp::kSubtract ? x - y : x * y;
      ASSERT_LE(std::abs(out[i] - quantize(real, qo)), 1) << "op " << int(op) << " index " << i;
    }
  }
}

TEST(BinaryQS8, AddSubtractMultiplyWithBroadcast) {
  std::mt19937 rng(52);
  ThreadPools pools;
  for (BinaryOp op : {BinaryOp::kAdd, BinaryOp::kSubtract, BinaryOp::kMultiply}) {
    check_binary_qs8(op, {4, 50, 24}, {4, 50, 24}, rng, pools);
    check_binary_qs8(op, {4, 50, 24}, {24}, rng, pools);
    check_binary_qs8(op, {3, 7, 5}, {3, 7, 1}, rng, pools);
  }
  EXPECT_THROW(BinaryQS8(BinaryOp::kDivide, {}, {}, {}, "qdiv"), std::invalid_argument);
}

TEST(MaxPool2dS8, MatchesReferenceExactly) {
  std::mt19937 rng(53);
  ThreadPools pools;
  const Pool2dParams p{.window = kernels::square_window(5, 1, 2),
                       .channels = 19,
                       .input_pixel_stride = 24,
                       .output_pixel_stride = 21};
  const size_t h = 11, w = 9;
  const std::vector<int8_t> input = random_int8(h * w * p.input_pixel_stride, rng);
  MaxPool2dS8 pool(p, "qmaxpool");
  ASSERT_EQ(pool.output_height(h), h);
  for (int threads : {1, 2}) {
    std::vector<int8_t> output(h * w * p.output_pixel_stride, 0);
    pool.setup(1, h, w, input.data(), output.data(), pools.get(threads));
    pool.run(pools.get(threads));
    for (size_t y = 0; y < h; ++y) {
      for (size_t x = 0; x < w; ++x) {
        for (size_t c = 0; c < p.channels; ++c) {
          int want = -128;
          for (long iy = long(y) - 2; iy <= long(y) + 2; ++iy) {
            for (long ix = long(x) - 2; ix <= long(x) + 2; ++ix) {
              if (iy < 0 || ix < 0 || iy >= long(h) || ix >= long(w)) continue;
              want = std::max<int>(want, input[(iy * w + ix) * p.input_pixel_stride + c]);
            }
          }
          ASSERT_EQ(output[(y * w + x) * p.output_pixel_stride + c], want);
        }
      }
    }
  }
}

TEST(LookupTableS8, AppliesSiluThroughTheTable) {
  const QuantParams in{.scale = 0.05f, .zero_point = 10};
  const QuantParams out{.scale = 0.03f, .zero_point = -100};
  auto silu = [](float x) { return x / (1.0f + std::exp(-x)); };
  LookupTableS8 table(in, out, silu);
  for (int q = -128; q <= 127; ++q) {
    const double y = silu(in.scale * float(q - in.zero_point));
    ASSERT_EQ(table.table()[q + 128], quantize(y, out)) << "q " << q;
  }
  ThreadPools pools;
  std::mt19937 rng(54);
  for (auto [pixels, channels, stride] :
       {std::tuple{1000, 48, 64}, std::tuple{5000, 32, 32}, std::tuple{3, 5, 5}}) {
    const std::vector<int8_t> input = random_int8(size_t(pixels) * stride, rng);
    for (int threads : {1, 2}) {
      std::vector<int8_t> output(input.size(), 55);
      table.run(pixels, channels, input.data(), stride, output.data(), stride, pools.get(threads));
      std::vector<int8_t> in_place = input;
      table.run(pixels, channels, in_place.data(), stride, in_place.data(), stride,
                pools.get(threads));
      for (size_t p = 0; p < size_t(pixels); ++p) {
        for (size_t c = 0; c < size_t(stride); ++c) {
          const size_t i = p * stride + c;
          if (c < size_t(channels)) {
            ASSERT_EQ(output[i], table.table()[input[i] + 128]);
            ASSERT_EQ(in_place[i], output[i]);
          } else {
            ASSERT_EQ(output[i], 55);
            ASSERT_EQ(in_place[i], input[i]);
          }
        }
      }
    }
  }
  EXPECT_THROW(LookupTableS8(in, out, [](float x) { return std::sqrt(x); }), std::invalid_argument);
}

}  // namespace
}  // namespace yolo::runtime::xnn
