// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/fp32_trade.h"

#include <gtest/gtest.h>

namespace yolo::runtime {
namespace {

// A conv stays FP32 only for a large gain at a small share of the MACs, and the decision keeps a
// margin from the measurement noise between machines (kDecisionMarginDb).
TEST(Fp32Trade, KeepsAConvOnlyForALargeGainAtASmallCost) {
  EXPECT_TRUE(worth_fp32(4.5, 0.02));
  EXPECT_FALSE(worth_fp32(4.5, 0.08));  // too many MACs
  EXPECT_FALSE(worth_fp32(3.2, 0.02));  // half the noise, but within the margin of 3 dB
  EXPECT_FALSE(worth_fp32(-1.0, 0.01));
  // One budget for every conv kept beyond the tail and the final convs.
  EXPECT_TRUE(worth_fp32(4.5, 0.01, 0.039));
  EXPECT_FALSE(worth_fp32(4.5, 0.044, 0.039));
  EXPECT_GE(kTradeGainDb, 3.0 + kDecisionMarginDb);
}

TEST(Fp32Trade, SaysWhatTheTradeCostsAndBuys) {
  Fp32Trade t{"Conv_3", 4.2, 0.031, 0.8, 0.02, true};
  EXPECT_EQ(trade_text(t, "box AP50"),
            "+0.80 ms (3.1% of conv MACs), +4.2 dB at the final convs, box AP50 +0.020");
  t.agreement_gain.reset();
  EXPECT_EQ(trade_text(t, "box AP50"), "+0.80 ms (3.1% of conv MACs), +4.2 dB at the final convs");
}

}  // namespace
}  // namespace yolo::runtime
