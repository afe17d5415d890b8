// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/noise_meter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace yolo::runtime {
namespace {

double sigmoid(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}

// Class logits [2 classes, 3 positions]: a confident car at position 1, a doubtful second class at
// position 2, nothing at position 0.
const std::vector<float> kLogits = {-9.0F, 2.0F,  -6.0F,   // class 0
                                    -8.0F, -5.0F, -1.0F};  // class 1

TEST(NoiseMeter, AnchorConfidenceIsTheBestClassScoreAtEachPosition) {
  const std::vector<float> w = anchor_confidence(kLogits, 2);
  ASSERT_EQ(w.size(), 3U);
  EXPECT_NEAR(w[0], sigmoid(-8.0), 1e-6);
  EXPECT_NEAR(w[1], sigmoid(2.0), 1e-6);
  EXPECT_NEAR(w[2], sigmoid(-1.0), 1e-6);
}

// A box output [4 channels, 3 positions]: the background's box at position 0 is off by 5 in every
// channel, the detected car's at position 1 by 0.5. Unweighted, the background makes the noise;
// weighted by where something is detected, the car's box does.
TEST(NoiseMeter, BoxNoiseIsWeighedWhereSomethingIsDetected) {
  const std::vector<float> reference = {10, 20, 30, 10, 20, 30, 10, 20, 30, 10, 20, 30};
  std::vector<float> candidate = reference;
  for (int c = 0; c < 4; ++c) {
    candidate[static_cast<std::size_t>(c * 3)] += 5.0F;
    candidate[static_cast<std::size_t>(c * 3 + 1)] += 0.5F;
  }
  NoiseSums flat, weighed;
  add_noise(reference, candidate, false, {}, flat);
  const std::vector<float> w = anchor_confidence(kLogits, 2);
  add_noise(reference, candidate, false, w, weighed);
  EXPECT_NEAR(flat.noise, 4 * (25.0 + 0.25), 1e-9);
  EXPECT_NEAR(flat.signal, 4 * (100.0 + 400.0 + 900.0), 1e-9);
  // The car's box alone, to within the background's weight (3e-4).
  const double car_nsr = (0.25 * w[1]) / (400.0 * w[1] + 900.0 * w[2]);
  EXPECT_NEAR(weighed.noise / weighed.signal, car_nsr, 0.05 * car_nsr);
  EXPECT_LT(weighed.noise / weighed.signal, 0.1 * flat.noise / flat.signal);
}

// Class logits compare as scores: a logit of -20 moved to -15 changes no detection, one of 0 moved
// to 1 does.
TEST(NoiseMeter, ClassLogitsCompareAsScores) {
  NoiseSums far, near;
  add_noise(std::vector<float>{-20.0F}, std::vector<float>{-15.0F}, true, {}, far);
  add_noise(std::vector<float>{0.0F}, std::vector<float>{1.0F}, true, {}, near);
  EXPECT_LT(far.noise, 1e-12);
  EXPECT_NEAR(near.noise, std::pow(sigmoid(1.0) - 0.5, 2), 1e-12);
  EXPECT_NEAR(near.signal, 0.25, 1e-12);
}

}  // namespace
}  // namespace yolo::runtime
