// SPDX-License-Identifier: Apache-2.0
// Zones' and lines' geometry (tracking/geometry.cpp).
#include "tracking/geometry.h"

#include <gtest/gtest.h>

namespace yolo::tracking {
namespace {

TEST(Geometry, FramePointsScaleWithTheFrame) {
  EXPECT_EQ(place({0.5, 0.25}, {1280, 720}), cv::Point2f(640, 180));
  EXPECT_EQ(place({0.5, 0.25}, {640, 360}), cv::Point2f(320, 90));
}

TEST(Geometry, Anchors) {
  const vision::Box b{10, 20, 30, 60};
  EXPECT_EQ(anchor_point(b, Anchor::kBottomCenter), cv::Point2f(20, 60));
  EXPECT_EQ(anchor_point(b, Anchor::kCenter), cv::Point2f(20, 40));
  EXPECT_EQ(anchor_point(b, Anchor::kTopCenter), cv::Point2f(20, 20));
}

TEST(Geometry, PointInPolygonWithItsEdgeInside) {
  // An L shape, so the test is not only a rectangle's.
  const std::vector<cv::Point2f> l = {{0, 0}, {10, 0}, {10, 4}, {4, 4}, {4, 10}, {0, 10}};
  EXPECT_TRUE(inside(l, {2, 2}));
  EXPECT_TRUE(inside(l, {2, 8}));
  EXPECT_FALSE(inside(l, {8, 8}));
  EXPECT_FALSE(inside(l, {-1, 5}));
  EXPECT_TRUE(inside(l, {10, 2})) << "on an edge";
  EXPECT_TRUE(inside(l, {4, 7})) << "on the inner edge";
  EXPECT_TRUE(inside(l, {0, 0})) << "a corner";
}

TEST(Geometry, SegmentsMeet) {
  EXPECT_TRUE(segments_meet({0, 0}, {10, 10}, {0, 10}, {10, 0}));
  EXPECT_FALSE(segments_meet({0, 0}, {4, 4}, {0, 10}, {10, 0}));
  EXPECT_TRUE(segments_meet({0, 0}, {5, 5}, {0, 10}, {10, 0})) << "touching";
  EXPECT_FALSE(segments_meet({0, 0}, {10, 0}, {0, 1}, {10, 1})) << "parallel";
}

TEST(Geometry, TheInSideOfALineAsSeenInTheImage) {
  // y grows downwards: below is larger y.
  const PlacedLine below({0, 100}, {200, 100}, Side::kBelow);
  EXPECT_GT(below.distance({50, 130}), 0);
  EXPECT_LT(below.distance({50, 70}), 0);
  EXPECT_FLOAT_EQ(below.distance({50, 130}), 30);
  // The same line drawn the other way round: the side named is still the one.
  const PlacedLine reversed({200, 100}, {0, 100}, Side::kBelow);
  EXPECT_GT(reversed.distance({50, 130}), 0);
  const PlacedLine above({0, 100}, {200, 100}, Side::kAbove);
  EXPECT_GT(above.distance({50, 70}), 0);
  const PlacedLine right({100, 0}, {100, 300}, Side::kRight);
  EXPECT_GT(right.distance({150, 10}), 0);
  const PlacedLine left({100, 300}, {100, 0}, Side::kLeft);
  EXPECT_GT(left.distance({50, 10}), 0);
  EXPECT_FLOAT_EQ(below.along({0, 0}), 0);
  EXPECT_FLOAT_EQ(below.along({100, 50}), 0.5f);
  EXPECT_FLOAT_EQ(below.along({300, 0}), 1.5f);
}

// A line across the middle of a 1000 x 1000 frame from x 100 to 900, in below, 14 px hysteresis.
PlacedLine middle() {
  return PlacedLine({100, 500}, {900, 500}, Side::kBelow, 14);
}

// The crossings a path of anchor points makes.
std::vector<Direction> crossings(const std::vector<cv::Point2f>& path) {
  const PlacedLine line = middle();
  LineStanding standing;
  std::vector<Direction> out;
  for (const cv::Point2f& p : path) {
    if (const auto d = line.advance(standing, p)) out.push_back(*d);
  }
  return out;
}

using Directions = std::vector<Direction>;
constexpr Direction kIn = Direction::kIn;
constexpr Direction kOut = Direction::kOut;

TEST(Geometry, APointOnOrNearTheLineOrBesideItsEndsHasNoSide) {
  const PlacedLine line = middle();
  EXPECT_EQ(line.side({500, 500}), std::nullopt) << "on the line";
  EXPECT_EQ(line.side({500, 510}), std::nullopt) << "within the hysteresis";
  EXPECT_EQ(line.side({500, 486}), std::nullopt) << "at the hysteresis";
  EXPECT_EQ(line.side({500, 520}), std::optional<bool>(true));
  EXPECT_EQ(line.side({500, 480}), std::optional<bool>(false));
  EXPECT_EQ(line.side({910, 520}), std::optional<bool>(true)) << "just past the end: still at it";
  EXPECT_EQ(line.side({950, 520}), std::nullopt) << "beside the end";
  EXPECT_EQ(line.side({50, 480}), std::nullopt) << "beside the other end";
  EXPECT_EQ(PlacedLine({5, 5}, {5, 5}, Side::kBelow, 1).side({5, 50}), std::nullopt)
      << "a zero-length line has no sides";
}

TEST(Geometry, TouchingTheLineAndGoingBackCountsNothing) {
  EXPECT_EQ(crossings({{500, 400}, {500, 500}, {500, 400}}), Directions{});
  EXPECT_EQ(crossings({{500, 400}, {500, 505}, {500, 600}}), Directions{kIn})
      << "the same touch, going on";
}

TEST(Geometry, JitterAcrossTheLineWithinTheHysteresisCountsNothing) {
  std::vector<cv::Point2f> path{{500, 420}};
  for (int i = 0; i < 40; ++i) path.push_back({500, i % 2 ? 508.0f : 492.0f});
  path.push_back({500, 420});
  EXPECT_EQ(crossings(path), Directions{});
  // Then across for real: once.
  path.push_back({500, 560});
  EXPECT_EQ(crossings(path), Directions{kIn});
}

TEST(Geometry, ACrossingBetweenTwoFramesCountsEachWay) {
  EXPECT_EQ(crossings({{500, 300}, {500, 700}}), Directions{kIn});
  EXPECT_EQ(crossings({{500, 300}, {500, 700}, {450, 200}}), (Directions{kIn, kOut}));
  // Diagonally, far from the middle: the path still meets the segment.
  EXPECT_EQ(crossings({{880, 700}, {300, 300}}), Directions{kOut});
}

TEST(Geometry, PassingBesideTheEndOrRoundItCountsNothing) {
  EXPECT_EQ(crossings({{950, 300}, {950, 700}}), Directions{}) << "beside the end";
  // Clearly above, then beside the end, then clearly below: it went round the end.
  EXPECT_EQ(crossings({{880, 450}, {990, 600}, {850, 600}}), Directions{});
  EXPECT_EQ(crossings({{150, 450}, {20, 500}, {150, 550}}), Directions{}) << "round the other end";
  // The first point with a side is where it starts: no crossing without one before it.
  EXPECT_EQ(crossings({{500, 495}, {500, 700}}), Directions{});
}

}  // namespace
}  // namespace yolo::tracking
