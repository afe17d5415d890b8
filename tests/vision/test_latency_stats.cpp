// SPDX-License-Identifier: Apache-2.0
#include "vision/latency_stats.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace yolo::vision {
namespace {

TEST(LatencyStats, NearestRankOnSortedSamples) {
  std::vector<double> samples;
  for (int i = 100; i >= 1; --i) samples.push_back(i);  // unsorted on purpose
  const LatencyStats s = summarize(samples);
  EXPECT_EQ(s.runs, 100u);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 100);
  // Rank floor(p * n) of the sorted samples, 0-based: 25 -> 26, 50 -> 51, 90 -> 91, 99 -> 100.
  EXPECT_EQ(s.p25, 26);
  EXPECT_EQ(s.p50, 51);
  EXPECT_EQ(s.p75, 76);
  EXPECT_EQ(s.p90, 91);
  EXPECT_EQ(s.p95, 96);
  EXPECT_EQ(s.p99, 100);
  EXPECT_DOUBLE_EQ(s.mean, 50.5);
  EXPECT_NEAR(s.stddev, 29.0115, 1e-4);
  EXPECT_EQ(s.iqr(), 50);
  EXPECT_NEAR(s.cv(), 29.0115 / 50.5, 1e-6);
}

TEST(LatencyStats, ZeroMeanHasZeroVariation) {
  const LatencyStats s = summarize({0, 0, 0});
  EXPECT_EQ(s.cv(), 0);
  EXPECT_EQ(s.iqr(), 0);
}

TEST(LatencyStats, OneSampleIsEveryPercentile) {
  const LatencyStats s = summarize({7.5});
  EXPECT_EQ(s.p50, 7.5);
  EXPECT_EQ(s.p99, 7.5);
  EXPECT_EQ(s.stddev, 0);
}

TEST(LatencyStats, NoSamplesIsAnError) {
  EXPECT_THROW(summarize({}), std::invalid_argument);
}

}  // namespace
}  // namespace yolo::vision
