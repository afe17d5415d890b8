// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/calibrate.h"

#include <gtest/gtest.h>

#include "tests/runtime/quantize/quantizer_models.h"

namespace yolo::runtime {
namespace {

using namespace quantize_test;

TEST(RefineRanges, ASiluInputStartsWhereTheSiluOutputStopsChanging) {
  ModelBuilder b = tiny_model();
  auto ranges = tiny_ranges();
  ranges["y1"] = {-30.0F, 4.0F};
  ranges["s1"] = {0.0F, 0.97F};
  const auto why = refine_ranges(b.proto().graph(), ranges);
  const float step = activation_quant(ranges.at("m1")).scale;
  const float lo = ranges.at("y1").lo;
  // Below lo every input rounds to the int8 SiLU output lo gives; lo itself is as high as that
  // allows (one step further up, SiLU is more than half a step from 0).
  auto silu = [](float x) { return x / (1.0F + std::exp(-x)); };
  EXPECT_LE(std::abs(silu(lo)), step / 2 * 1.0001F);
  EXPECT_GT(std::abs(silu(lo + 0.01F)), step / 2);
  EXPECT_LT(lo, -4.0F);
  EXPECT_FLOAT_EQ(ranges.at("y1").hi, 4.0F);
  EXPECT_FLOAT_EQ(ranges.at("s1").lo, 0.0F);
  EXPECT_FLOAT_EQ(ranges.at("s1").hi, 1.0F);
  EXPECT_FLOAT_EQ(ranges.at("y2").lo, -2.0F);
  EXPECT_EQ(why.size(), 2U);
  EXPECT_NE(why.at("y1").find("SiLU"), std::string::npos);
}

TEST(RefineRanges, ATensorReadBeyondTheSiluKeepsItsRange) {
  ModelBuilder b = tiny_model();
  b.output("y1");
  auto ranges = tiny_ranges();
  ranges["y1"] = {-30.0F, 4.0F};
  refine_ranges(b.proto().graph(), ranges);
  EXPECT_FLOAT_EQ(ranges.at("y1").lo, -30.0F);
}

}  // namespace
}  // namespace yolo::runtime
