// SPDX-License-Identifier: Apache-2.0
// The AVX-512 VNNI int8 convolution against XNNPACK's QC8 convolution, byte for byte: every
// geometry the YOLO models use (1x1, 3x3 stride 1 and 2, the 3-channel first conv, channel counts
// that are not multiples of 16 or 64, channel slices of wider pixels, Relu clamps, a fused table)
// and one or two threads. Skipped on CPUs without VNNI, where the engine uses XNNPACK only.

#include "runtime/kernels/conv_qc8_vnni.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "runtime/xnn/int8.h"

namespace yolo::runtime {
namespace {

struct Case {
  std::size_t height, width, cin, cout;
  std::uint32_t kernel, stride, pad, dilation = 1;
  bool relu = false;
  bool table = false;
  std::size_t batch = 1;
  bool dense_input = false;   // pixels exactly as wide as their channels
  bool dense_output = false;  // output pixels exactly as wide as their channels
};

std::vector<std::int8_t> random_int8(std::size_t n, std::mt19937& rng, int lo, int hi) {
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<std::int8_t> values;
  // XNNPACK may read past the end of its input.
  values.reserve(n + xnn::kExtraInputBytes);
  values.resize(n);
  for (std::int8_t& v : values) v = static_cast<std::int8_t>(dist(rng));
  return values;
}

void check(const Case& c, std::mt19937& rng, xnn::ThreadPools& pools) {
  SCOPED_TRACE(testing::Message() << c.batch << "x" << c.height << "x" << c.width << " Cin "
                                  << c.cin << " Cout " << c.cout << " k" << c.kernel << " s"
                                  << c.stride << " p" << c.pad << " d" << c.dilation
                                  << (c.relu ? " relu" : "") << (c.table ? " table" : ""));
  const std::size_t in_offset = 3, out_offset = 5;
  xnn::Conv2dQC8Params p;
  p.geometry.window.kernel_height = p.geometry.window.kernel_width = c.kernel;
  p.geometry.window.stride_height = p.geometry.window.stride_width = c.stride;
  p.geometry.window.dilation_height = p.geometry.window.dilation_width = c.dilation;
  p.geometry.window.pad_top = p.geometry.window.pad_left = p.geometry.window.pad_bottom =
      p.geometry.window.pad_right = c.pad;
  p.geometry.input_channels = c.cin;
  p.geometry.output_channels = c.cout;
  p.geometry.input_pixel_stride = c.dense_input ? c.cin : c.cin + in_offset + 2;
  p.geometry.output_pixel_stride = c.dense_output ? c.cout : c.cout + out_offset + 1;
  p.input = {0.021F, -9};
  const std::size_t k = c.cin * c.kernel * c.kernel;
  p.output = {0.011F * std::sqrt(static_cast<float>(k)), 4};
  if (c.relu) p.output_min = p.output.zero_point;

  const auto weights = random_int8(c.cout * k, rng, -127, 127);
  std::vector<float> weight_scales(c.cout);
  std::uniform_real_distribution<float> scale_dist(0.004F, 0.02F);
  for (float& s : weight_scales) s = scale_dist(rng);
  std::vector<std::int32_t> bias(c.cout);
  for (std::int32_t& b : bias) b = static_cast<std::int32_t>(rng() % 4001) - 2000;
  const auto input =
      random_int8(c.batch * c.height * c.width * p.geometry.input_pixel_stride, rng, -128, 127);

  std::optional<xnn::LookupTableS8> lut;
  std::optional<std::array<std::int8_t, 256>> by_byte;
  if (c.table) {
    lut.emplace(p.output, xnn::QuantParams{0.05F, -100},
                [](float x) { return x / (1.0F + std::exp(-x)); });
    by_byte = lut->by_byte();
  }

  kernels::ConvQC8Geometry g{
      {c.kernel, c.kernel, c.stride, c.stride, c.dilation, c.dilation, c.pad, c.pad, c.pad, c.pad},
      c.cin,
      c.cout,
      p.geometry.input_pixel_stride,
      p.geometry.output_pixel_stride};
  kernels::ConvQC8Quant q{p.input.scale,       p.input.zero_point, p.output.scale,
                          p.output.zero_point, p.output_min,       p.output_max};
  const kernels::ConvQC8Vnni ours(g, q, weights, weight_scales, bias, by_byte);
  xnn::Conv2dQC8 reference(p, weights, weight_scales, bias, "reference");
  const std::size_t oh = ours.output_height(c.height), ow = ours.output_width(c.width);
  ASSERT_EQ(oh, reference.output_height(c.height));
  ASSERT_EQ(ow, reference.output_width(c.width));
  const std::size_t out_size = c.batch * oh * ow * p.geometry.output_pixel_stride;

  std::vector<std::int8_t> expected(out_size, 77);
  reference.setup(c.batch, c.height, c.width, input.data() + in_offset,
                  expected.data() + out_offset, pools.get(1));
  reference.run(pools.get(1));
  if (lut) {
    lut->run(c.batch * oh * ow, c.cout, expected.data() + out_offset,
             p.geometry.output_pixel_stride, expected.data() + out_offset,
             p.geometry.output_pixel_stride, nullptr);
  }
  for (int threads : {1, 2}) {
    std::vector<std::int8_t> actual(out_size, 77);
    ours.run(c.batch, c.height, c.width, input.data() + in_offset, actual.data() + out_offset,
             pools.get(threads));
    std::size_t differ = 0;
    for (std::size_t i = 0; i < out_size; ++i) differ += actual[i] != expected[i];
    // Bytes outside the channel slice stay untouched because both leave them at 77.
    EXPECT_EQ(differ, 0U) << threads << " thread(s)";
  }
}

class ConvQC8VnniTest : public testing::Test {
 protected:
  void SetUp() override {
    if (!kernels::ConvQC8Vnni::available()) {
      GTEST_SKIP() << "this CPU has no AVX-512 VNNI + VBMI: the engine uses XNNPACK's int8 "
                      "convolution, tested in test_xnn_int8";
    }
  }
  std::mt19937 rng{20261122};
  xnn::ThreadPools pools;
};

TEST_F(ConvQC8VnniTest, PointwiseMatchesXnnpack) {
  for (const Case& c : {Case{20, 20, 64, 64, 1, 1, 0}, Case{10, 10, 256, 128, 1, 1, 0},
                        Case{7, 9, 48, 80, 1, 1, 0}, Case{5, 5, 32, 16, 1, 1, 0, 1, true},
                        Case{13, 11, 130, 200, 1, 1, 0}, Case{3, 3, 8, 7, 1, 1, 0}}) {
    check(c, rng, pools);
  }
}

TEST_F(ConvQC8VnniTest, SpatialMatchesXnnpack) {
  for (const Case& c :
       {Case{20, 20, 32, 64, 3, 1, 1}, Case{21, 19, 64, 64, 3, 2, 1}, Case{16, 16, 16, 48, 3, 1, 1},
        Case{12, 12, 64, 80, 3, 1, 1}, Case{9, 9, 24, 24, 5, 1, 2},
        Case{11, 11, 16, 32, 3, 1, 2, 2}, Case{6, 6, 64, 64, 3, 1, 0},
        Case{8, 8, 12, 20, 3, 2, 1, 1, false, false, 2}}) {
    check(c, rng, pools);
  }
}

TEST_F(ConvQC8VnniTest, FewInputChannelsGatherTheTaps) {
  // The first conv of every YOLO: 3 channels, 3x3, stride 2, read a kernel row at a time when the
  // pixels are dense (including the last row, whose piece ends at the end of the input); and odd
  // counts read a pixel at a time.
  for (const Case& c :
       {Case{32, 32, 3, 16, 3, 2, 1}, Case{17, 15, 3, 32, 3, 2, 1}, Case{9, 9, 5, 16, 3, 1, 1},
        Case{6, 6, 3, 16, 1, 1, 0}, Case{5, 7, 70, 16, 1, 1, 0}}) {
    check(c, rng, pools);
  }
}

TEST_F(ConvQC8VnniTest, NarrowLayersRunSixteenPixelsInLanes) {
  // At most 16 output channels: rows wide enough for runs of 16 inside pixels, which the
  // pixel-lane kernel takes (the borders stay with the channel-vector one): the stem read by
  // kernel rows, with its table, on two images, into dense output; 8 and 16 channel bottlenecks
  // from channel slices and dense pixels (each load: bytes within 128, 16-byte slots, one load of
  // 16 whole pixels); an odd channel count with stride and dilation 2.
  for (const Case& c :
       {Case{9, 66, 3, 16, 3, 2, 1, 1, false, true, 1, true, true},
        Case{7, 70, 3, 16, 3, 2, 1, 1, false, false, 2, true}, Case{6, 40, 16, 8, 3, 1, 1},
        Case{6, 41, 16, 8, 3, 1, 1, 1, false, true, 1, true, true},
        Case{5, 38, 8, 16, 3, 1, 1, 1, true, true}, Case{8, 75, 12, 5, 3, 2, 1, 2},
        Case{3, 36, 16, 16, 1, 1, 0, 1, false, false, 1, true, true},
        Case{4, 40, 8, 16, 3, 1, 1, 1, false, false, 1, true}}) {
    check(c, rng, pools);
  }
}

TEST_F(ConvQC8VnniTest, FusedTableAndClampMatchXnnpackThenTable) {
  for (const Case& c :
       {Case{10, 10, 32, 64, 3, 1, 1, 1, false, true},
        Case{10, 10, 64, 80, 1, 1, 0, 1, false, true}, Case{16, 16, 3, 16, 3, 2, 1, 1, false, true},
        Case{8, 8, 16, 16, 3, 1, 1, 1, true, true}}) {
    check(c, rng, pools);
  }
}

TEST_F(ConvQC8VnniTest, RejectsInconsistentSizes) {
  kernels::ConvQC8Geometry g;
  g.window.kernel_height = g.window.kernel_width = 3;
  g.input_channels = 4;
  g.output_channels = 8;
  const std::vector<std::int8_t> weights(8 * 4 * 9 - 1);
  const std::vector<float> scales(8, 0.01F);
  EXPECT_THROW(kernels::ConvQC8Vnni(g, {}, weights, scales, {}), std::invalid_argument);
  const std::vector<std::int8_t> good(8 * 4 * 9);
  const std::vector<float> zero_scale(8, 0.0F);
  EXPECT_THROW(kernels::ConvQC8Vnni(g, {}, good, zero_scale, {}), std::invalid_argument);
  const kernels::ConvQC8Vnni conv(g, {}, good, scales, {});
  EXPECT_THROW((void)conv.output_height(1), std::invalid_argument);
}

}  // namespace
}  // namespace yolo::runtime
