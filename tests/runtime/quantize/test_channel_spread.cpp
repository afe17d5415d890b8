// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/channel_spread.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/runtime/test_model_builder.h"

namespace yolo::runtime {
namespace {

using test::ModelBuilder;

// A [channels, 1, 2] input with these values, channel after channel.
ChannelPeaks peaks_of(const std::vector<float>& values, std::int64_t channels) {
  ChannelPeaks p;
  p.add({values, channels, 1, static_cast<std::int64_t>(values.size()) / channels});
  return p;
}

// The largest channel's peak |value| over the median channel's, over every frame added.
TEST(ChannelSpread, PeaksAreLargestMagnitudesAndSpreadIsLargestOverMedian) {
  ChannelPeaks p = peaks_of({0.5F, -1.0F, 2.0F, 1.5F, -100.0F, 3.0F}, 3);
  EXPECT_EQ(p.peaks(), (std::vector<float>{1.0F, 2.0F, 100.0F}));
  EXPECT_DOUBLE_EQ(p.spread(), 50.0);
  // A later frame raises a channel's peak; a smaller value does not lower one.
  p.add({std::vector<float>{4.0F, 0.0F, 0.0F, 0.0F, 1.0F, 1.0F}, 3, 1, 2});
  EXPECT_EQ(p.peaks(), (std::vector<float>{4.0F, 2.0F, 100.0F}));
  EXPECT_DOUBLE_EQ(p.spread(), 25.0);
  EXPECT_DOUBLE_EQ(peaks_of({1, -1, 1, 1}, 2).spread(), 1.0);
  EXPECT_DOUBLE_EQ(peaks_of({0, 0, 0, 0}, 2).spread(), 1.0);
  EXPECT_EQ(peaks_of({0, 0, 0, 0, 5, 1}, 3).spread(), std::numeric_limits<double>::infinity());
  EXPECT_DOUBLE_EQ(ChannelPeaks().spread(), 1.0);
}

// x -> c1 -> SiLU (m1) -> c2 -> SiLU (m2) -> c3 -> out, and a Concat reading m2 in `concat_too`.
onnx::ModelProto chain(bool concat_too = false) {
  ModelBuilder b;
  b.input("x", {1, 3, 4, 4});
  b.random("w1", {4, 3, 1, 1}, 1).random("w2", {4, 4, 1, 1}, 2).random("w3", {2, 4, 1, 1}, 3);
  b.node("Conv", {"x", "w1"}, {"y1"}, "c1");
  b.node("Sigmoid", {"y1"}, {"s1"}, "sig1");
  b.node("Mul", {"y1", "s1"}, {"m1"}, "mul1");
  b.node("Conv", {"m1", "w2"}, {"y2"}, "c2");
  b.node("Sigmoid", {"y2"}, {"s2"}, "sig2");
  b.node("Mul", {"y2", "s2"}, {"m2"}, "mul2");
  b.node("Conv", {"m2", "w3"}, {"out"}, "c3");
  b.output("out");
  if (concat_too) {
    auto& cat = b.node("Concat", {"m2", "m1"}, {"cat"}, "cat");
    ModelBuilder::attr(cat, "axis", std::int64_t{1});
    b.output("cat");
  }
  return b.proto();
}

std::vector<ConvUnit> chain_units(double c1, double c2, double c3) {
  return {
      {"c1", {"c1", "sig1", "mul1"}, c1}, {"c2", {"c2", "sig2", "mul2"}, c2}, {"c3", {"c3"}, c3}};
}

// m1's channels spread 20-fold: c1 (with its SiLU) and c2, on both sides of it, stay FP32 so that
// it is never rounded; m2's spread 2 is left alone.
TEST(ChannelSpread, KeepsTheConvsOnBothSidesOfAWidelySpreadTensor) {
  Calibration calib;
  calib.channel_peaks["m1"] = peaks_of({1, 1, 20, 2}, 4);
  calib.channel_peaks["m2"] = peaks_of({1, 2, 2, 1}, 4);
  KeepReasons keep;
  std::vector<std::string> lines;
  // 20 over the median channel's 2: exactly the limit, not above it.
  EXPECT_TRUE(keep_spread_tensors(chain().graph(), chain_units(1, 1, 1000), calib, keep,
                                  [&](const std::string& l) { lines.push_back(l); })
                  .empty());
  EXPECT_TRUE(keep.empty());
  EXPECT_TRUE(lines.empty());

  calib.channel_peaks["m1"] = peaks_of({1, 1, 40, 2}, 4);
  const auto wide = keep_spread_tensors(chain().graph(), chain_units(1, 1, 1000), calib, keep,
                                        [&](const std::string& l) { lines.push_back(l); });
  ASSERT_EQ(wide.size(), 1U);
  EXPECT_TRUE(wide[0].kept) << wide[0].why_not;
  EXPECT_EQ(wide[0].convs, (std::vector<std::string>{"c1", "c2"}));
  EXPECT_NEAR(wide[0].mac_share, 2.0 / 1002.0, 1e-12);
  for (const char* n : {"c1", "sig1", "mul1", "c2", "sig2", "mul2"}) {
    ASSERT_TRUE(keep.count(n)) << n;
    EXPECT_NE(keep.at(n).find("20.0-fold"), std::string::npos) << keep.at(n);
  }
  EXPECT_FALSE(keep.count("c3"));
  ASSERT_EQ(lines.size(), 1U);
  EXPECT_NE(lines[0].find("-> FP32: c1, c2"), std::string::npos) << lines[0];
  const nlohmann::json rows = spread_report(wide);
  EXPECT_EQ(rows[0]["tensor"], "m1");
  EXPECT_EQ(rows[0]["kept_fp32"], true);
}

// Within kMaxSpreadMacShare only, and never where another node would round the tensor anyway.
TEST(ChannelSpread, LeavesATensorInt8BeyondTheBudgetOrWhereANonConvReadsIt) {
  Calibration calib;
  calib.channel_peaks["m2"] = peaks_of({1, 1, 50, 2}, 4);
  KeepReasons keep;
  const auto costly =
      keep_spread_tensors(chain().graph(), chain_units(10, 100, 100), calib, keep, {});
  ASSERT_EQ(costly.size(), 1U);
  EXPECT_FALSE(costly[0].kept);
  EXPECT_NE(costly[0].why_not.find("at most 5%"), std::string::npos) << costly[0].why_not;
  EXPECT_TRUE(keep.empty());

  const auto shared =
      keep_spread_tensors(chain(true).graph(), chain_units(1, 1, 1000), calib, keep, {});
  ASSERT_EQ(shared.size(), 1U);
  EXPECT_FALSE(shared[0].kept);
  EXPECT_NE(shared[0].why_not.find("cat (Concat)"), std::string::npos) << shared[0].why_not;
  EXPECT_TRUE(keep.empty());
}

}  // namespace
}  // namespace yolo::runtime
