// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/weights.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/runtime/quantize/conv_reference.h"
#include "tests/support/random_tensors.h"

namespace yolo::runtime {
namespace {

using namespace quantize_test;

// Channels that move together (a shared signal plus a little of their own), as neighbouring
// feature maps do: the case where rounding each weight on its own adds up worst.
Image correlated_image(std::int64_t c, std::int64_t h, std::int64_t w, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0F, 1.0F);
  Image img{c, h, w, std::vector<float>(static_cast<std::size_t>(c * h * w))};
  for (std::int64_t p = 0; p < h * w; ++p) {
    const float shared = 1.0F + dist(rng);
    for (std::int64_t k = 0; k < c; ++k) {
      img.values[static_cast<std::size_t>(k * h * w + p)] = shared + 0.2F * dist(rng);
    }
  }
  return img;
}

std::vector<float> random_weights(std::size_t n, std::uint32_t seed) {
  const Tensor t = test::Random(seed).floats({static_cast<std::int64_t>(n)}, -1.0F, 1.0F);
  const auto v = t.values<float>();
  return {v.begin(), v.end()};
}

// Mean squared difference of two conv outputs.
double mse(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += (a[i] - b[i]) * (a[i] - b[i]);
  return sum / static_cast<double>(a.size());
}

// Per output channel, the mean of out_b - out_a.
std::vector<double> mean_shift(const std::vector<double>& a, const std::vector<double>& b,
                               std::int64_t channels) {
  const std::size_t per = a.size() / static_cast<std::size_t>(channels);
  std::vector<double> shift(static_cast<std::size_t>(channels));
  for (std::size_t i = 0; i < a.size(); ++i) shift[i / per] += (b[i] - a[i]) / per;
  return shift;
}

TEST(RoundToNearest, ScalesEachChannelByItsLargestWeight) {
  const std::vector<float> w = {0.5F, -1.0F, 0.25F, 0.0F, 0.0F, 0.0F};
  const Int8Weights q = round_to_nearest(w, 2);
  EXPECT_FLOAT_EQ(q.scales[0], 1.0F / 127.0F);
  EXPECT_EQ(q.values, (std::vector<std::int8_t>{64, -127, 32, 0, 0, 0}));
  EXPECT_FLOAT_EQ(q.scales[1], 1.0F);  // an all-zero channel
}

TEST(BiasCorrection, RemovesAPlantedMeanShift) {
  const ConvGeometry g = geometry(3, 4, 3, 1, 1);
  const std::int64_t k = g.patch_size();
  // Per channel the largest weight is exactly 127 steps; every other weight lies 0.4 of a step
  // above an integer, so round-to-nearest lowers each of them by 0.4 steps: on inputs of mean 1
  // the int8 conv's outputs are all shifted down.
  const float step = 0.01F;
  std::vector<float> w(static_cast<std::size_t>(g.out_channels * k));
  for (std::size_t i = 0; i < w.size(); ++i) {
    w[i] = i % static_cast<std::size_t>(k) == 0 ? 127 * step
                                                : (static_cast<float>(i % 50) - 24.6F) * step;
  }
  const Int8Weights q = round_to_nearest(w, g.out_channels);
  std::vector<Image> calibration;
  for (std::uint32_t seed = 1; seed <= 4; ++seed)
    calibration.push_back(correlated_image(4, 12, 12, seed));
  PatchMeans means(g);
  for (const auto& img : calibration) means.add(img.view());
  const std::vector<float> shift = bias_correction(w, g, means.means(), q);

  const std::vector<double> bias = {0.5, -0.25, 0.0};
  std::vector<double> corrected = bias;
  for (std::size_t o = 0; o < bias.size(); ++o) corrected[o] += shift[o];
  for (std::uint32_t seed : {1U, 99U}) {  // a calibration image, then one never seen
    const Image img = correlated_image(4, 12, 12, seed);
    const auto fp32 = conv2d(img, g, as_doubles(w), bias);
    const auto before = mean_shift(fp32, conv2d(img, g, dequantized(q, 3), bias), 3);
    const auto after = mean_shift(fp32, conv2d(img, g, dequantized(q, 3), corrected), 3);
    for (std::size_t o = 0; o < 3; ++o) {
      // About 0.4 steps x 35 weights x a mean input near 1, before.
      EXPECT_LT(before[o], -0.05) << "seed " << seed << " channel " << o;
      EXPECT_LT(std::abs(after[o]), 0.1 * std::abs(before[o]))
          << "seed " << seed << " channel " << o;
    }
  }
}

TEST(AdaptiveRounding, LowersTheLayerErrorBelowRoundToNearestOnUnseenInputs) {
  for (const ConvGeometry& g :
       {geometry(8, 16, 3, 1, 1), geometry(16, 16, 3, 1, 1, 16), geometry(8, 32, 1, 1, 0)}) {
    const std::vector<float> w =
        random_weights(static_cast<std::size_t>(g.out_channels * g.patch_size()), 5);
    PatchGram gram(g);
    std::mt19937 rng(3);
    for (std::uint32_t seed = 1; seed <= 6; ++seed) {
      gram.add(correlated_image(g.in_channels, 16, 16, seed).view(), 128, rng);
    }
    const auto h = gram.matrices();
    const Int8Weights nearest = round_to_nearest(w, g.out_channels);
    Int8Weights adaptive = nearest;
    const std::int64_t flipped = optimise_rounding(w, g, h, adaptive);
    EXPECT_GT(flipped, 0);
    // Still a rounding: every weight on the step below or above, never further, and the scales
    // unchanged.
    EXPECT_EQ(adaptive.scales, nearest.scales);
    const std::size_t per = w.size() / static_cast<std::size_t>(g.out_channels);
    for (std::size_t i = 0; i < w.size(); ++i) {
      const double v = w[i] / adaptive.scales[i / per];
      EXPECT_LE(std::abs(adaptive.values[i] - v), 1.0) << i;
    }
    // On the patches it was chosen on...
    const WeightError before = weight_error(w, g, h, nearest);
    const WeightError after = weight_error(w, g, h, adaptive);
    EXPECT_LT(after.noise, before.noise);
    EXPECT_GT(after.sqnr_db(), before.sqnr_db());
    // ...and on an input it never saw, measured on the conv's real outputs.
    const Image unseen = correlated_image(g.in_channels, 16, 16, 77);
    const auto fp32 = conv2d(unseen, g, as_doubles(w), {});
    const double e_nearest = mse(fp32, conv2d(unseen, g, dequantized(nearest, g.out_channels), {}));
    const double e_adaptive =
        mse(fp32, conv2d(unseen, g, dequantized(adaptive, g.out_channels), {}));
    EXPECT_LT(e_adaptive, 0.8 * e_nearest) << "group " << g.group << ", kernel " << g.kernel_h;
  }
}

TEST(WeightError, IsTheMeanSquaredOutputErrorOverThePatches) {
  const ConvGeometry g = geometry(4, 3, 3, 2, 1);
  const std::vector<float> w = random_weights(4 * 27, 8);
  const Image img = correlated_image(3, 10, 10, 4);
  PatchGram gram(g);
  std::mt19937 rng(1);
  gram.add(img.view(), 1000, rng);  // every output pixel
  const Int8Weights q = round_to_nearest(w, 4);
  const WeightError e = weight_error(w, g, gram.matrices(), q);
  const auto fp32 = conv2d(img, g, as_doubles(w), {});
  const auto int8 = conv2d(img, g, dequantized(q, 4), {});
  // Summed over the 4 channels, each the mean over the 25 output pixels.
  EXPECT_NEAR(e.noise, 4 * mse(fp32, int8), 1e-6 * e.signal);
  EXPECT_NEAR(e.signal, 4 * mse(fp32, std::vector<double>(fp32.size(), 0.0)), 1e-4 * e.signal);
}

}  // namespace
}  // namespace yolo::runtime
