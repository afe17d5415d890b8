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

}  // namespace
}  // namespace yolo::tracking
