// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/calibration.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

namespace yolo::runtime {
namespace {

std::vector<float> gaussian(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0F, 1.0F);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

// 100000 values of a SiLU output x * sigmoid(x) * 3: never below -0.28, a long positive tail.
TensorStatistics silu_statistics(std::uint32_t seed) {
  TensorStatistics s;
  std::vector<float> v = gaussian(100000, seed);
  for (auto& x : v) x = x / (1.0F + std::exp(-x)) * 3.0F;
  s.add(v);
  return s;
}

TEST(CalibrationMethod, ParsesItsNamesAndRefusesOthers) {
  EXPECT_EQ(parse_calibration_method("minmax"), CalibrationMethod::kMinMax);
  EXPECT_EQ(parse_calibration_method("percentile"), CalibrationMethod::kPercentile);
  EXPECT_EQ(parse_calibration_method("entropy"), CalibrationMethod::kEntropy);
  EXPECT_EQ(parse_calibration_method("mse"), CalibrationMethod::kMse);
  EXPECT_STREQ(to_string(CalibrationMethod::kEntropy), "entropy");
  try {
    parse_calibration_method("kl");
    FAIL() << "accepted 'kl'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("minmax, percentile, entropy or mse"), std::string::npos);
  }
}

TEST(ActivationQuant, CoversTheRangeWithZeroExact) {
  const ActivationQuant q = activation_quant({-1.0F, 3.0F});
  EXPECT_FLOAT_EQ(q.scale, 4.0F / 255.0F);
  EXPECT_EQ(q.zero_point, -64);  // round(-128 + 1 / (4/255)) = round(-64.25)
  // Both ends stay within one step of the int8 limits.
  EXPECT_NEAR((-128 - q.zero_point) * q.scale, -1.0F, q.scale);
  EXPECT_NEAR((127 - q.zero_point) * q.scale, 3.0F, q.scale);
}

TEST(ActivationQuant, OneSidedRangesIncludeZeroAndEmptyRangesGetScaleOne) {
  const ActivationQuant relu = activation_quant({0.0F, 6.0F});
  EXPECT_EQ(relu.zero_point, -128);
  EXPECT_FLOAT_EQ(relu.scale, 6.0F / 255.0F);
  const ActivationQuant negative = activation_quant({-5.0F, -1.0F});  // widened to [-5, 0]
  EXPECT_EQ(negative.zero_point, 127);
  const ActivationQuant empty = activation_quant({0.0F, 0.0F});
  EXPECT_FLOAT_EQ(empty.scale, 1.0F);
  EXPECT_EQ(empty.zero_point, 0);
}

TEST(TensorStatistics, MinMaxIsTheObservedRangeOverAllBatches) {
  TensorStatistics s;
  s.add(std::vector<float>{0.5F, 2.0F});
  s.add(std::vector<float>{-3.0F, 1.0F, NAN});
  EXPECT_EQ(s.count(), 5);
  EXPECT_FLOAT_EQ(s.min(), -3.0F);
  EXPECT_FLOAT_EQ(s.max(), 2.0F);
  const ActivationRange r = s.range(CalibrationMethod::kMinMax);
  EXPECT_FLOAT_EQ(r.lo, -3.0F);
  EXPECT_FLOAT_EQ(r.hi, 2.0F);
}

TEST(TensorStatistics, MinMaxRangeAlwaysIncludesZero) {
  TensorStatistics s;
  s.add(std::vector<float>{2.0F, 5.0F});
  const ActivationRange r = s.range(CalibrationMethod::kMinMax);
  EXPECT_FLOAT_EQ(r.lo, 0.0F);
  EXPECT_FLOAT_EQ(r.hi, 5.0F);
}

TEST(TensorStatistics, PercentileClipsARareOutlier) {
  TensorStatistics s;
  std::vector<float> v = gaussian(200000, 1);
  v.push_back(1000.0F);
  s.add(v);
  const ActivationRange r = s.range(CalibrationMethod::kPercentile, 99.99);
  // |x| of a standard normal passes 3.89 with probability 1e-4.
  EXPECT_GT(r.hi, 3.0F);
  EXPECT_LT(r.hi, 5.0F);
  EXPECT_LT(r.lo, -3.0F);
  EXPECT_FLOAT_EQ(s.range(CalibrationMethod::kMinMax).hi, 1000.0F);
}

TEST(TensorStatistics, PercentileKeepsTheExactMinimumOfAOneSidedTail) {
  const TensorStatistics s = silu_statistics(2);
  const ActivationRange r = s.range(CalibrationMethod::kPercentile);
  EXPECT_FLOAT_EQ(r.lo, s.min());
  EXPECT_LE(r.hi, s.max());
}

TEST(TensorStatistics, EntropyThresholdSitsBetweenTheBulkAndTheOutlier) {
  TensorStatistics s;
  std::vector<float> v = gaussian(200000, 3);
  for (int i = 0; i < 5; ++i) v.push_back(60.0F);
  s.add(v);
  const ActivationRange r = s.range(CalibrationMethod::kEntropy);
  EXPECT_GT(r.hi, 2.5F);
  EXPECT_LT(r.hi, 30.0F);
  EXPECT_LT(r.lo, -2.5F);
}

TEST(TensorStatistics, EntropyOfAUniformDistributionKeepsNearlyAllOfIt) {
  TensorStatistics s;
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> dist(-1.0F, 1.0F);
  std::vector<float> v(200000);
  for (auto& x : v) x = dist(rng);
  s.add(v);
  EXPECT_GT(s.range(CalibrationMethod::kEntropy).hi, 0.9F);
}

// Mean squared error of fake-quantizing `v` to int8 over `r`.
double int8_error(const std::vector<float>& v, ActivationRange r) {
  const ActivationQuant q = activation_quant(r);
  double sum = 0;
  for (const float x : v) {
    const float k = std::clamp(std::nearbyint(x / q.scale) + q.zero_point, -128.0F, 127.0F);
    const double d = x - (k - q.zero_point) * q.scale;
    sum += d * d;
  }
  return sum / static_cast<double>(v.size());
}

TEST(TensorStatistics, MseRangeQuantizesWithLessErrorThanMinMax) {
  // A bulk plus a sparse tail out to 40: clipping the end of the tail costs less than rounding
  // the bulk at the full range's step.
  TensorStatistics s;
  std::vector<float> v = gaussian(200000, 5);
  for (int i = 0; i < 40; ++i) v.push_back(static_cast<float>(i));
  s.add(v);
  const ActivationRange mse = s.range(CalibrationMethod::kMse);
  const ActivationRange minmax = s.range(CalibrationMethod::kMinMax);
  EXPECT_LT(mse.hi, 0.95F * minmax.hi);
  EXPECT_LT(int8_error(v, mse), 0.95 * int8_error(v, minmax));
}

TEST(TensorStatistics, MseChoosesEachSideOnItsOwn) {
  // The negative side keeps its minimum.
  const TensorStatistics s = silu_statistics(6);
  const ActivationRange r = s.range(CalibrationMethod::kMse);
  EXPECT_NEAR(r.lo, s.min(), 0.01F);
  EXPECT_LE(r.hi, s.max());
  EXPECT_GT(r.hi, 0.5F * s.max());
}

// A million values of a unit Gaussian and one at 100 (a glint, one hot pixel): min/max spends
// its 255 steps on a range the bulk never uses.
std::vector<float> bulk_and_a_glint(std::uint32_t seed) {
  std::vector<float> v = gaussian(1000000, seed);
  v[static_cast<std::size_t>(seed) * 7919] = 100.0F;
  return v;
}

TEST(TensorStatistics, MseChoosesARangeThatBeatsMinMaxOnValuesItNeverSaw) {
  TensorStatistics s;
  s.add(bulk_and_a_glint(1));
  const ActivationRange chosen = s.range(CalibrationMethod::kMse);
  const ActivationRange minmax = s.range(CalibrationMethod::kMinMax);
  EXPECT_LT(chosen.hi, 0.7F * minmax.hi);
  // On values from the same distribution it never saw, it wins by far.
  const std::vector<float> unseen = bulk_and_a_glint(2);
  EXPECT_LT(int8_error(unseen, chosen), 0.6 * int8_error(unseen, minmax));
}

TEST(TensorStatistics, GrowingRangesRebinWithoutLosingCounts) {
  TensorStatistics s;
  // Half the mass in [0, 1), then the range grows tenfold with the other half near 9.
  std::vector<float> small(10000), large(10000, 9.0F);
  for (std::size_t i = 0; i < small.size(); ++i) small[i] = static_cast<float>(i) / 10000.0F;
  s.add(small);
  s.add(large);
  EXPECT_EQ(s.count(), 20000);
  // The 40th percentile of |x| lies in the first half, below 1 (plus one coarse bin).
  EXPECT_LT(s.range(CalibrationMethod::kPercentile, 40.0).hi, 1.01F);
  EXPECT_GT(s.range(CalibrationMethod::kPercentile, 60.0).hi, 8.9F);
}

}  // namespace
}  // namespace yolo::runtime
