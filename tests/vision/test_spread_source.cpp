// SPDX-License-Identifier: Apache-2.0
#include "vision/spread_source.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include <opencv2/core.hpp>

#include "tests/support/fixtures.h"

namespace yolo::vision {
namespace {

std::string video() {
  return (test::fixtures_dir() / "video" / "birds_720p_10fps.mp4").string();
}

// A fingerprint of a frame's pixels (FNV-1a): the video's frames all differ.
std::uint64_t fingerprint(const cv::Mat& bgr) {
  std::uint64_t h = 1469598103934665603ULL;
  const cv::Mat m = bgr.isContinuous() ? bgr : bgr.clone();
  for (const std::uint8_t* p = m.data; p != m.dataend; ++p) h = (h ^ *p) * 1099511628211ULL;
  return h;
}

// The inner frame each delivered frame was, among the first `scan` of `uri` (-1: none of them).
std::vector<std::int64_t> delivered_indices(SpreadSource& spread, const std::string& uri,
                                            std::size_t scan) {
  std::vector<std::uint64_t> all;
  const auto whole = open_source({uri});
  Frame frame;
  while (all.size() < scan && whole->read(frame)) all.push_back(fingerprint(frame.bgr));
  std::vector<std::int64_t> out;
  while (spread.read(frame)) {
    const auto it = std::find(all.begin(), all.end(), fingerprint(frame.bgr));
    out.push_back(it == all.end() ? -1 : static_cast<std::int64_t>(it - all.begin()));
  }
  return out;
}

TEST(SpreadIndices, TakeTheMiddleOfEqualStretches) {
  EXPECT_EQ(spread_indices(10, 2), (std::vector<std::int64_t>{2, 7}));
  EXPECT_EQ(spread_indices(335, 1), (std::vector<std::int64_t>{167}));
  EXPECT_EQ(spread_indices(4, 4), (std::vector<std::int64_t>{0, 1, 2, 3}));
  // Fewer frames than asked: all of them.
  EXPECT_EQ(spread_indices(3, 256), (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_TRUE(spread_indices(0, 5).empty());
  EXPECT_THROW(spread_indices(-1, 5), std::invalid_argument);
  // Ascending, distinct, first and last stretch both covered.
  const auto picks = spread_indices(167, 64);
  ASSERT_EQ(picks.size(), 64U);
  for (std::size_t i = 1; i < picks.size(); ++i) EXPECT_LT(picks[i - 1], picks[i]);
  EXPECT_LE(picks.front(), 2);
  EXPECT_GE(picks.back(), 164);
}

TEST(SpreadSource, DrawsFramesAcrossTheWholeVideoNotTheFirstOnes) {
  YOLO_REQUIRE_FIXTURES();
  SpreadSource spread(open_source({video()}), 4);
  EXPECT_EQ(spread.frame_count(), 4);
  EXPECT_NE(spread.describe().find("4 frame(s) spread evenly over all 671"), std::string::npos)
      << spread.describe();
  EXPECT_EQ(delivered_indices(spread, video(), 600),
            (std::vector<std::int64_t>{83, 251, 419, 587}));
}

TEST(SpreadSource, KeepsToTheFirstFramesOfThePool) {
  YOLO_REQUIRE_FIXTURES();
  SpreadSource spread(open_source({video()}), 3, 30);
  EXPECT_NE(spread.describe().find("3 frame(s) spread evenly over the first 30"), std::string::npos)
      << spread.describe();
  EXPECT_EQ(delivered_indices(spread, video(), 30), (std::vector<std::int64_t>{5, 15, 25}));
  // A pool larger than the video is the video.
  SpreadSource all(open_source({video()}), 1000, 5000);
  EXPECT_EQ(all.frame_count(), 671);
  EXPECT_NE(all.describe().find("all 671 frame(s)"), std::string::npos) << all.describe();
}

TEST(SpreadSource, TakesTheFirstFramesOfASourceOfUnknownLength) {
  YOLO_REQUIRE_FIXTURES();
  // A looping file has no end, like a camera.
  SpreadSource spread(open_source({video(), true}), 3);
  EXPECT_EQ(spread.frame_count(), 0);
  EXPECT_NE(spread.describe().find("its first 3 frame(s)"), std::string::npos) << spread.describe();
  Frame frame;
  int n = 0;
  while (spread.read(frame)) EXPECT_EQ(frame.index, n++);
  EXPECT_EQ(n, 3);
}

}  // namespace
}  // namespace yolo::vision
