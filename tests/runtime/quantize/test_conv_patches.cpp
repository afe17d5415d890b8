// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/conv_patches.h"

#include <gtest/gtest.h>

#include "runtime/quantize/error.h"
#include "tests/runtime/quantize/conv_reference.h"
#include "tests/runtime/test_model_builder.h"

namespace yolo::runtime {
namespace {

using namespace quantize_test;

Image random_image(std::int64_t c, std::int64_t h, std::int64_t w, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0F, 3.0F);
  Image img{c, h, w, std::vector<float>(static_cast<std::size_t>(c * h * w))};
  for (auto& v : img.values) v = dist(rng);
  return img;
}

// Patch element k of group `grp`'s patch at output pixel (y, x), zero in the padding.
float patch_value(const Image& in, const ConvGeometry& g, std::int64_t grp, std::int64_t y,
                  std::int64_t x, std::int64_t k) {
  const std::int64_t kk = g.kernel_h * g.kernel_w;
  const std::int64_t c = grp * (g.in_channels / g.group) + k / kk;
  const std::int64_t iy = y * g.stride_h + (k % kk) / g.kernel_w * g.dilation_h - g.pad_top;
  const std::int64_t ix = x * g.stride_w + (k % g.kernel_w) * g.dilation_w - g.pad_left;
  if (iy < 0 || iy >= in.height || ix < 0 || ix >= in.width) return 0.0F;
  return in.values[static_cast<std::size_t>((c * in.height + iy) * in.width + ix)];
}

TEST(ConvGeometry, ReadsTheAttributesAndTheWeight) {
  test::ModelBuilder b;
  b.random("w", {8, 2, 3, 3}, 1);
  auto& conv = b.node("Conv", {"x", "w"}, {"y"}, "c");
  test::ModelBuilder::attr(conv, "group", std::int64_t{2});
  test::ModelBuilder::attr(conv, "strides", std::vector<std::int64_t>{2, 1});
  test::ModelBuilder::attr(conv, "pads", std::vector<std::int64_t>{1, 0, 1, 2});
  const ConvGeometry g = conv_geometry(conv, b.proto().graph().initializer(0));
  EXPECT_EQ(g.out_channels, 8);
  EXPECT_EQ(g.in_channels, 4);
  EXPECT_EQ(g.group, 2);
  EXPECT_EQ(g.patch_size(), 18);
  EXPECT_EQ(g.group_outputs(), 4);
  EXPECT_EQ(g.out_height(9), 5);  // (9 + 2 - 3) / 2 + 1
  EXPECT_EQ(g.out_width(9), 9);   // (9 + 2 - 3) / 1 + 1
  test::ModelBuilder::attr(conv, "auto_pad", std::string("SAME_UPPER"));
  EXPECT_THROW(conv_geometry(conv, b.proto().graph().initializer(0)), QuantizeError);
}

TEST(PatchMeans, EqualTheMeanOfEveryPatchElementWithPaddingAsZeros) {
  for (const ConvGeometry& g : {geometry(4, 3, 3, 2, 1), geometry(6, 6, 3, 1, 1, 6),
                                geometry(2, 4, 1, 1, 0), geometry(2, 2, 5, 2, 2)}) {
    const Image a = random_image(g.in_channels, 9, 7, 1), b = random_image(g.in_channels, 9, 7, 2);
    PatchMeans means(g);
    means.add(a.view());
    means.add(b.view());
    const std::vector<double> got = means.means();
    const std::int64_t oh = g.out_height(9), ow = g.out_width(7);
    const std::int64_t k = g.patch_size();
    ASSERT_EQ(got.size(), static_cast<std::size_t>(g.group * k));
    for (std::int64_t grp = 0; grp < g.group; ++grp) {
      for (std::int64_t i = 0; i < k; ++i) {
        double sum = 0;
        for (const Image* img : {&a, &b}) {
          for (std::int64_t y = 0; y < oh; ++y) {
            for (std::int64_t x = 0; x < ow; ++x) sum += patch_value(*img, g, grp, y, x, i);
          }
        }
        EXPECT_NEAR(got[static_cast<std::size_t>(grp * k + i)], sum / (2.0 * oh * ow), 1e-5)
            << "group " << grp << " element " << i;
      }
    }
  }
}

TEST(PatchGram, WithEveryPixelIsTheMeanOuterProductOfThePatches) {
  const ConvGeometry g = geometry(4, 4, 3, 2, 1, 2);
  const Image img = random_image(4, 6, 5, 3);
  PatchGram gram(g);
  std::mt19937 rng(1);
  gram.add(img.view(), 1000, rng);  // more than the 3 x 3 output pixels: all of them
  const std::int64_t oh = g.out_height(6), ow = g.out_width(5);
  EXPECT_EQ(gram.samples(), oh * ow);
  EXPECT_EQ(PatchGram::footprint(g), 2 * 18 * 18);
  const auto h = gram.matrices();
  ASSERT_EQ(h.size(), 2U);
  for (std::int64_t grp = 0; grp < 2; ++grp) {
    for (std::int64_t i = 0; i < 18; ++i) {
      for (std::int64_t j = 0; j < 18; ++j) {
        double sum = 0;
        for (std::int64_t y = 0; y < oh; ++y) {
          for (std::int64_t x = 0; x < ow; ++x) {
            sum += static_cast<double>(patch_value(img, g, grp, y, x, i)) *
                   patch_value(img, g, grp, y, x, j);
          }
        }
        EXPECT_NEAR(h[static_cast<std::size_t>(grp)](i, j), sum / static_cast<double>(oh * ow),
                    1e-4);
      }
    }
  }
  // Sampling takes as many distinct pixels as asked.
  PatchGram sampled(g);
  sampled.add(img.view(), 4, rng);
  EXPECT_EQ(sampled.samples(), 4);
}

}  // namespace
}  // namespace yolo::runtime
