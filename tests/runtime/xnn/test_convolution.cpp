// SPDX-License-Identifier: Apache-2.0
// Conv2dF32 and Deconv2dF32 against naive NHWC references with ONNX weight layouts.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "runtime/xnn/convolution.h"
#include "tests/runtime/xnn/window_taps.h"

namespace yolo::runtime::xnn {
namespace {

using yolo::test::for_each_tap;

constexpr float kSentinel = -12345.0f;

std::vector<float> random_values(size_t count, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  // XNNPACK may read up to kExtraInputBytes past the end of an input: reserve them.
  std::vector<float> values;
  values.reserve(count + kExtraInputBytes / sizeof(float));
  values.resize(count);
  for (float& v : values) v = dist(rng);
  return values;
}

// A convolution problem: parameters plus where the input and output live inside wider buffers.
struct ConvCase {
  Conv2dParams params;
  size_t batch = 1;
  size_t height = 1;
  size_t width = 1;
  size_t input_offset = 0;   // first channel of the slice inside the wide input
  size_t output_offset = 0;  // first channel of the slice inside the wide output
  bool bias = true;
};

// The kernel, stride, dilation and pads, for the trace of a failing case.
std::string describe(const kernels::Window2d& w) {
  char text[128];
  std::snprintf(text, sizeof(text), "k%ux%u s%u,%u d%u,%u pads t%u l%u b%u r%u", w.kernel_height,
                w.kernel_width, w.stride_height, w.stride_width, w.dilation_height,
                w.dilation_width, w.pad_top, w.pad_left, w.pad_bottom, w.pad_right);
  return text;
}

std::string describe(const ConvCase& c) {
  const Conv2dParams& p = c.params;
  char text[320];
  std::snprintf(text, sizeof(text),
                "N%zu %zux%zu Cin%zu Cout%zu %s g%u strides %zu/%zu offsets %zu/%zu clamp [%g,%g]",
                c.batch, c.height, c.width, p.input_channels, p.output_channels,
                describe(p.window).c_str(), p.groups, p.input_pixel_stride, p.output_pixel_stride,
                c.input_offset, c.output_offset, p.output_min, p.output_max);
  return text;
}

// ONNX Conv semantics on NHWC data with ONNX OIHW weights, accumulated in double.
std::vector<float> reference_conv(const ConvCase& c, const std::vector<float>& input,
                                  const std::vector<float>& weights, const std::vector<float>& bias,
                                  size_t out_h, size_t out_w) {
  const Conv2dParams& p = c.params;
  const size_t gi = p.input_channels / p.groups;
  const size_t go = p.output_channels / p.groups;
  std::vector<float> out(c.batch * out_h * out_w * p.output_channels);
  for (size_t n = 0; n < c.batch; ++n) {
    for (size_t oy = 0; oy < out_h; ++oy) {
      for (size_t ox = 0; ox < out_w; ++ox) {
        for (size_t oc = 0; oc < p.output_channels; ++oc) {
          const size_t g = oc / go;
          double sum = bias.empty() ? 0.0 : bias[oc];
          for_each_tap(p.window, oy, ox, c.height, c.width,
                       [&](size_t ky, size_t kx, size_t iy, size_t ix) {
                         const float* pixel =
                             &input[((n * c.height + iy) * c.width + ix) * p.input_pixel_stride +
                                    c.input_offset];
                         for (size_t ic = 0; ic < gi; ++ic) {
                           sum += double(pixel[g * gi + ic]) *
                                  weights[((oc * gi + ic) * p.window.kernel_height + ky) *
                                              p.window.kernel_width +
                                          kx];
                         }
                       });
          const double clamped = std::clamp<double>(sum, p.output_min, p.output_max);
          out[((n * out_h + oy) * out_w + ox) * p.output_channels + oc] = float(clamped);
        }
      }
    }
  }
  return out;
}

bool close(float got, float want) {
  return std::fabs(got - want) <= 1e-4f * std::max(1.0f, std::fabs(want));
}

// Runs `op` (set up for one case) at 1 and 2 threads into outputs `stride` channels wide
// filled with kSentinel: the `channels` from `offset` on must match `want` (pixel by pixel), the
// others stay untouched, and both runs agree.
template <typename Op, typename Want>
void expect_output(Op& op, size_t batch, size_t height, size_t width, const float* input,
                   size_t offset, size_t channels, size_t stride, const std::vector<Want>& want,
                   ThreadPools& pools) {
  const size_t pixels = batch * op.output_height(height) * op.output_width(width);
  std::vector<float> first;
  for (int threads : {1, 2}) {
    pthreadpool_t pool = pools.get(threads);
    std::vector<float> output(pixels * stride, kSentinel);
    op.setup(batch, height, width, input, output.data() + offset, pool);
    op.run(pool);
    size_t bad = 0;
    for (size_t pixel = 0; pixel < pixels; ++pixel) {
      for (size_t ch = 0; ch < stride; ++ch) {
        const float got = output[pixel * stride + ch];
        const bool inside = ch >= offset && ch < offset + channels;
        const bool ok =
            inside ? close(got, float(want[pixel * channels + ch - offset])) : got == kSentinel;
        if (!ok && ++bad <= 5) {
          ADD_FAILURE() << "threads " << threads << " pixel " << pixel << " channel " << ch
                        << (inside ? "" : " (outside the slice)") << ": got " << got;
        }
      }
    }
    EXPECT_EQ(bad, 0u) << "threads " << threads;
    if (first.empty()) {
      first = output;
    } else {
      EXPECT_EQ(first, output) << "1 and 2 threads disagree";
    }
  }
}

// Runs one case at 1 and 2 threads; checks values, untouched neighbours and thread agreement.
void check_conv(ConvCase c, std::mt19937& rng, ThreadPools& pools) {
  Conv2dParams& p = c.params;
  if (p.input_pixel_stride == 0) p.input_pixel_stride = p.input_channels + c.input_offset;
  if (p.output_pixel_stride == 0) p.output_pixel_stride = p.output_channels + c.output_offset;
  SCOPED_TRACE(describe(c));
  const size_t gi = p.input_channels / p.groups;
  const std::vector<float> weights =
      random_values(p.output_channels * gi * p.window.kernel_height * p.window.kernel_width, rng);
  const std::vector<float> bias =
      c.bias ? random_values(p.output_channels, rng) : std::vector<float>{};
  const std::vector<float> input =
      random_values(c.batch * c.height * c.width * p.input_pixel_stride, rng);

  Conv2dF32 conv(p, weights, bias, "conv_under_test");
  const size_t out_h = conv.output_height(c.height);
  const size_t out_w = conv.output_width(c.width);
  const std::vector<float> want = reference_conv(c, input, weights, bias, out_h, out_w);

  expect_output(conv, c.batch, c.height, c.width, input.data() + c.input_offset, c.output_offset,
                p.output_channels, p.output_pixel_stride, want, pools);
}

TEST(Conv2dF32, NamedYoloShapes) {
  std::mt19937 rng(1);
  ThreadPools pools;
  auto conv = [](size_t cin, size_t cout, uint32_t k, uint32_t s, uint32_t pad, uint32_t g) {
    ConvCase c;
    c.params.input_channels = cin;
    c.params.output_channels = cout;
    c.params.window = kernels::square_window(k, s, pad);
    c.params.groups = g;
    c.height = 9;
    c.width = 11;
    return c;
  };
  check_conv(conv(16, 32, 1, 1, 0, 1), rng, pools);   // 1x1 stride 1: plain GEMM
  check_conv(conv(16, 24, 3, 1, 1, 1), rng, pools);   // 3x3 same
  check_conv(conv(16, 32, 3, 2, 1, 1), rng, pools);   // 3x3 downsample
  check_conv(conv(24, 24, 3, 1, 1, 24), rng, pools);  // depthwise
  check_conv(conv(24, 24, 3, 2, 1, 24), rng, pools);  // depthwise stride 2
  check_conv(conv(13, 13, 5, 1, 2, 13), rng, pools);  // depthwise 5x5, odd channels
  check_conv(conv(8, 16, 3, 1, 1, 8), rng, pools);    // depthwise, multiplier 2
  check_conv(conv(16, 8, 3, 1, 1, 4), rng, pools);    // grouped, not depthwise
  check_conv(conv(1, 5, 3, 1, 1, 1), rng, pools);     // one input channel
  check_conv(conv(5, 1, 1, 1, 0, 1), rng, pools);     // one output channel
  check_conv(conv(3, 16, 3, 2, 1, 1), rng, pools);    // RGB stem
  ConvCase unbiased = conv(7, 9, 3, 1, 1, 1);
  unbiased.bias = false;
  check_conv(unbiased, rng, pools);
}

TEST(Conv2dF32, OddSizesPaddingDilationClampAndBatch) {
  std::mt19937 rng(2);
  ThreadPools pools;
  ConvCase image1x1;  // 1x1 image, 3x3 kernel, all padding
  image1x1.params = {
      .window = kernels::square_window(3, 1, 1), .input_channels = 6, .output_channels = 10};
  check_conv(image1x1, rng, pools);

  ConvCase asym;  // asymmetric pads, rectangular kernel and strides
  asym.params = {.window = {.kernel_height = 2,
                            .kernel_width = 3,
                            .stride_height = 2,
                            .stride_width = 1,
                            .pad_top = 0,
                            .pad_left = 2,
                            .pad_bottom = 1,
                            .pad_right = 0},
                 .input_channels = 5,
                 .output_channels = 7};
  asym.height = 7;
  asym.width = 6;
  check_conv(asym, rng, pools);

  ConvCase dilated;
  dilated.params = {.window = {.kernel_height = 3,
                               .kernel_width = 3,
                               .dilation_height = 2,
                               .dilation_width = 3,
                               .pad_top = 2,
                               .pad_left = 3,
                               .pad_bottom = 2,
                               .pad_right = 3},
                    .input_channels = 4,
                    .output_channels = 6};
  dilated.height = 8;
  dilated.width = 9;
  check_conv(dilated, rng, pools);

  ConvCase relu;
  relu.params = {.window = kernels::square_window(3, 1, 1),
                 .input_channels = 8,
                 .output_channels = 8,
                 .output_min = 0.0f};
  relu.height = relu.width = 5;
  relu.batch = 3;
  check_conv(relu, rng, pools);

  ConvCase clip = relu;
  clip.params.output_min = -0.5f;
  clip.params.output_max = 0.5f;
  clip.params.groups = 8;
  check_conv(clip, rng, pools);
}

TEST(Conv2dF32, ReadsAndWritesChannelSlices) {
  std::mt19937 rng(3);
  ThreadPools pools;
  for (uint32_t groups : {1u, 12u}) {
    ConvCase c;
    c.params = {.window = kernels::square_window(3, 1, 1),
                .groups = groups,
                .input_channels = 12,
                .output_channels = 12};
    c.height = 6;
    c.width = 7;
    c.input_offset = 5;  // read channels 5..16 of a 20-channel tensor
    c.params.input_pixel_stride = 20;
    c.output_offset = 9;  // write channels 9..20 of a 24-channel tensor
    c.params.output_pixel_stride = 24;
    check_conv(c, rng, pools);
  }
}

TEST(Conv2dF32, RandomShapes) {
  std::mt19937 rng(4);
  ThreadPools pools;
  std::uniform_int_distribution<int> small(0, 2);
  for (int trial = 0; trial < 60; ++trial) {
    ConvCase c;
    Conv2dParams& p = c.params;
    p.window.kernel_height = 1 + rng() % 4;
    p.window.kernel_width = 1 + rng() % 4;
    p.window.stride_height = 1 + small(rng);
    p.window.stride_width = 1 + small(rng);
    p.window.dilation_height = 1 + rng() % 2;
    p.window.dilation_width = 1 + rng() % 2;
    p.window.pad_top = small(rng);
    p.window.pad_left = small(rng);
    p.window.pad_bottom = small(rng);
    p.window.pad_right = small(rng);
    const int kind = rng() % 3;  // dense, grouped, depthwise
    const size_t gi = 1 + rng() % 9;
    const size_t go = 1 + rng() % 9;
    p.groups = kind == 0 ? 1 : 1 + rng() % 4;
    p.input_channels = (kind == 2 ? 1 : gi) * p.groups;
    p.output_channels = (kind == 2 ? 1 + rng() % 2 : go) * p.groups;
    if (kind == 2) {
      p.groups = static_cast<uint32_t>(p.input_channels);
      p.output_channels = p.input_channels * (1 + rng() % 2);
    }
    c.batch = 1 + rng() % 2;
    c.height = 1 + rng() % 10;
    c.width = 1 + rng() % 10;
    c.input_offset = rng() % 3;
    c.output_offset = rng() % 3;
    const size_t min_h = size_t{p.window.dilation_height} * (p.window.kernel_height - 1) + 1;
    const size_t min_w = size_t{p.window.dilation_width} * (p.window.kernel_width - 1) + 1;
    c.height = std::max(c.height, min_h > p.window.pad_top + p.window.pad_bottom
                                      ? min_h - p.window.pad_top - p.window.pad_bottom
                                      : 1);
    c.width = std::max(c.width, min_w > p.window.pad_left + p.window.pad_right
                                    ? min_w - p.window.pad_left - p.window.pad_right
                                    : 1);
    check_conv(c, rng, pools);
  }
}

TEST(Conv2dF32, SetupAgainAfterTheInputSizeChanges) {
  std::mt19937 rng(5);
  ThreadPools pools;
  Conv2dParams p{
      .window = kernels::square_window(3, 2, 1), .input_channels = 4, .output_channels = 6};
  const std::vector<float> weights = random_values(6 * 4 * 9, rng);
  const std::vector<float> bias = random_values(6, rng);
  Conv2dF32 conv(p, weights, bias, "resized");
  for (size_t size : {8u, 13u, 3u, 8u}) {
    ConvCase c{.params = p, .height = size, .width = size + 1};
    c.params.input_pixel_stride = 4;
    c.params.output_pixel_stride = 6;
    const std::vector<float> input = random_values(size * (size + 1) * 4, rng);
    const size_t out_h = conv.output_height(size);
    const size_t out_w = conv.output_width(size + 1);
    EXPECT_EQ(out_h, (size - 1) / 2 + 1);
    const std::vector<float> want = reference_conv(c, input, weights, bias, out_h, out_w);
    std::vector<float> output(out_h * out_w * 6);
    conv.setup(1, size, size + 1, input.data(), output.data(), pools.get(2));
    conv.run(pools.get(2));
    for (size_t i = 0; i < output.size(); ++i) {
      ASSERT_TRUE(close(output[i], want[i])) << "size " << size << " index " << i;
    }
  }
}

TEST(Conv2dF32, RejectsInconsistentParametersNamingTheNode) {
  Conv2dParams p{.window = kernels::square_window(3, 1, 0),
                 .groups = 2,
                 .input_channels = 4,
                 .output_channels = 6};
  const std::vector<float> weights(6 * 2 * 9);
  EXPECT_NO_THROW(Conv2dF32(p, weights, {}, "ok"));
  try {
    Conv2dF32(p, std::vector<float>(5), {}, "/model.0/conv/Conv");
    FAIL() << "expected a throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("/model.0/conv/Conv"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("weights"), std::string::npos) << e.what();
  }
  p.groups = 4;  // 6 output channels are not divisible by 4
  EXPECT_THROW(Conv2dF32(p, weights, {}, "bad_groups"), std::invalid_argument);
  p.groups = 2;
  p.input_pixel_stride = 3;  // narrower than 4 channels
  EXPECT_THROW(Conv2dF32(p, weights, {}, "bad_stride"), std::invalid_argument);
  p.input_pixel_stride = 0;
  Conv2dF32 conv(p, weights, {}, "too_small_input");
  std::vector<float> buffer(64);
  EXPECT_THROW(conv.setup(1, 2, 2, buffer.data(), buffer.data(), nullptr), std::invalid_argument);
}

// ONNX ConvTranspose on NHWC data, weights [Cin][Cout/g][kH][kW], accumulated in double.
struct DeconvCase {
  Deconv2dParams params;
  size_t batch = 1;
  size_t height = 1;
  size_t width = 1;
  size_t input_offset = 0;   // first channel of the slice inside the wide input
  size_t output_offset = 0;  // first channel of the slice inside the wide output
};

void check_deconv(DeconvCase c, std::mt19937& rng, ThreadPools& pools) {
  Deconv2dParams& p = c.params;
  p.input_pixel_stride = p.input_channels + c.input_offset + 1;
  p.output_pixel_stride = p.output_channels + c.output_offset + 2;
  char text[256];
  std::snprintf(text, sizeof(text), "N%zu %zux%zu Cin%zu Cout%zu %s adj %u,%u g%u", c.batch,
                c.height, c.width, p.input_channels, p.output_channels, describe(p.window).c_str(),
                p.output_padding_height, p.output_padding_width, p.groups);
  SCOPED_TRACE(text);
  const size_t gi = p.input_channels / p.groups;
  const size_t go = p.output_channels / p.groups;
  const size_t ks = size_t{p.window.kernel_height} * p.window.kernel_width;
  const std::vector<float> weights = random_values(p.input_channels * go * ks, rng);
  const std::vector<float> bias = random_values(p.output_channels, rng);
  const std::vector<float> input =
      random_values(c.batch * c.height * c.width * p.input_pixel_stride, rng);
  Deconv2dF32 deconv(p, weights, bias, "deconv_under_test");
  const size_t out_h = deconv.output_height(c.height);
  const size_t out_w = deconv.output_width(c.width);
  EXPECT_EQ(out_h, p.window.stride_height * (c.height - 1) + p.output_padding_height +
                       p.window.dilation_height * (p.window.kernel_height - 1) + 1 -
                       p.window.pad_top - p.window.pad_bottom);

  std::vector<double> want(c.batch * out_h * out_w * p.output_channels);
  for (size_t n = 0; n < c.batch; ++n) {
    for (size_t oy = 0; oy < out_h; ++oy) {
      for (size_t ox = 0; ox < out_w; ++ox) {
        for (size_t oc = 0; oc < p.output_channels; ++oc) {
          want[((n * out_h + oy) * out_w + ox) * p.output_channels + oc] = bias[oc];
        }
      }
    }
    for (size_t iy = 0; iy < c.height; ++iy) {
      for (size_t ix = 0; ix < c.width; ++ix) {
        for (size_t ic = 0; ic < p.input_channels; ++ic) {
          const size_t g = ic / gi;
          const double x = input[((n * c.height + iy) * c.width + ix) * p.input_pixel_stride +
                                 c.input_offset + ic];
          for (size_t o = 0; o < go; ++o) {
            // A deconvolution scatters input (iy, ix) to the outputs its window reaches.
            for_each_tap(p.window, iy, ix, out_h, out_w,
                         [&](size_t ky, size_t kx, size_t oy, size_t ox) {
                           want[((n * out_h + oy) * out_w + ox) * p.output_channels + g * go + o] +=
                               x * weights[(ic * go + o) * ks + ky * p.window.kernel_width + kx];
                         });
          }
        }
      }
    }
  }
  expect_output(deconv, c.batch, c.height, c.width, input.data() + c.input_offset, c.output_offset,
                p.output_channels, p.output_pixel_stride, want, pools);
}

TEST(Deconv2dF32, MatchesReference) {
  std::mt19937 rng(6);
  ThreadPools pools;
  // The YOLO-style 2x upsampling ConvTranspose.
  check_deconv({.params = {.window = kernels::square_window(2, 2, 0),
                           .input_channels = 16,
                           .output_channels = 8},
                .height = 5,
                .width = 6},
               rng, pools);
  // Padding, output padding, dilation, groups, batch.
  check_deconv({.params = {.window = kernels::square_window(3, 2, 1),
                           .output_padding_height = 1,
                           .output_padding_width = 1,
                           .input_channels = 6,
                           .output_channels = 10},
                .batch = 2,
                .height = 4,
                .width = 3},
               rng, pools);
  check_deconv({.params = {.window = {.kernel_height = 3,
                                      .kernel_width = 2,
                                      .stride_height = 1,
                                      .stride_width = 3,
                                      .dilation_height = 2,
                                      .dilation_width = 1,
                                      .pad_top = 0,
                                      .pad_left = 1,
                                      .pad_bottom = 2,
                                      .pad_right = 0},
                           .output_padding_width = 2,
                           .groups = 3,
                           .input_channels = 6,
                           .output_channels = 9},
                .height = 1,
                .width = 1},
               rng, pools);
  for (int trial = 0; trial < 20; ++trial) {
    DeconvCase c;
    Deconv2dParams& p = c.params;
    p.window.kernel_height = 1 + rng() % 4;
    p.window.kernel_width = 1 + rng() % 4;
    p.window.stride_height = 1 + rng() % 3;
    p.window.stride_width = 1 + rng() % 3;
    p.output_padding_height = rng() % p.window.stride_height;
    p.output_padding_width = rng() % p.window.stride_width;
    p.window.pad_top = rng() % p.window.kernel_height;
    p.window.pad_bottom = rng() % p.window.kernel_height;
    p.window.pad_left = rng() % p.window.kernel_width;
    p.window.pad_right = rng() % p.window.kernel_width;
    p.groups = 1 + rng() % 3;
    p.input_channels = p.groups * (1 + rng() % 5);
    p.output_channels = p.groups * (1 + rng() % 5);
    c.height = 2 + rng() % 5;
    c.width = 2 + rng() % 5;
    c.input_offset = rng() % 3;
    c.output_offset = rng() % 3;
    check_deconv(c, rng, pools);
  }
}

TEST(Deconv2dF32, RejectsOutputPaddingNotBelowTheStride) {
  Deconv2dParams p{.window = kernels::square_window(2, 2, 0),
                   .output_padding_height = 2,
                   .input_channels = 1,
                   .output_channels = 1};
  EXPECT_THROW(Deconv2dF32(p, std::vector<float>(4), {}, "up"), std::invalid_argument);
}

}  // namespace
}  // namespace yolo::runtime::xnn
