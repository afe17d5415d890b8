// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/stem.h"

#include <gtest/gtest.h>

#include "tests/runtime/quantize/quantizer_models.h"

namespace yolo::runtime {
namespace {

using namespace quantize_test;

// auto's stem choice on noise curves (prefix_noise[k]: the noise with the first k convs FP32, as a
// share of the noise with none): it must not move when each measurement moves by up to a quarter
// of the margin either way, so that two machines disagreeing by up to half of it (0.5 dB) make the
// same choice. On a plateau of near-equal prefixes, where the former rule (the shortest within 10%
// of the least) moved between 3 and 4 convs, it keeps the shortest.
TEST(Quantizer, StemChoiceDoesNotMoveWithMeasurementNoise) {
  struct Curve {
    std::vector<double> noise;
    std::size_t chosen;
  };
  const std::vector<Curve> curves = {
      {{1.0, 1.147, 1.114, 0.521, 0.674, 0.934, 0.556}, 3},  // yolo11n on the 6 photos (x86)
      {{1.0, 0.93, 0.72, 0.47, 0.45, 0.44}, 3},              // a plateau after 3 convs
      {{1.0, 0.97, 0.95, 0.93}, 0},                          // nothing gains the margin
  };
  const double wobble = std::pow(10.0, kDecisionMarginDb / 4.0 / 10.0);
  for (const auto& c : curves) {
    EXPECT_EQ(choose_stem_prefix(c.noise), c.chosen);
    // Every combination of -, 0, + on every measurement.
    std::size_t combinations = 1;
    for (std::size_t i = 0; i < c.noise.size(); ++i) combinations *= 3;
    for (std::size_t m = 0; m < combinations; ++m) {
      std::vector<double> moved = c.noise;
      std::size_t digits = m;
      for (auto& v : moved) {
        v *= digits % 3 == 0 ? 1.0 : digits % 3 == 1 ? wobble : 1.0 / wobble;
        digits /= 3;
      }
      ASSERT_EQ(choose_stem_prefix(moved), c.chosen) << "combination " << m;
    }
  }
}

}  // namespace
}  // namespace yolo::runtime
