// SPDX-License-Identifier: Apache-2.0
// Drawing tracks, zones and lines (tracking/draw.cpp): the pixels change where they are.
#include "tracking/draw.h"

#include <gtest/gtest.h>

#include <opencv2/core.hpp>

namespace yolo::tracking {
namespace {

TEST(Draw, ZonesLinesTrailsAndIdsAppearWhereTheyAre) {
  cv::Mat frame(720, 1280, CV_8UC3, cv::Scalar(40, 40, 40));
  const cv::Mat before = frame.clone();
  Track t;
  t.id = 12;
  t.box = {600, 100, 680, 300};
  t.trail = {{500, 500}, {550, 450}, {600, 400}};
  std::vector<Track> tracks{t};
  std::vector<config::ZoneConfig> zones{
      {.name = "gate",
       .camera = "main",
       .points = {{0.05, 0.6}, {0.3, 0.6}, {0.3, 0.95}, {0.05, 0.95}},
       .classes = {},
       .anchor = Anchor::kBottomCenter,
       .loiter_s = 0,
       .inertia_s = 0}};
  std::vector<config::LineConfig> lines{{.name = "road",
                                         .camera = "main",
                                         .from = {0.5, 0.9},
                                         .to = {0.95, 0.9},
                                         .in = Side::kBelow,
                                         .classes = {},
                                         .anchor = Anchor::kBottomCenter,
                                         .hysteresis = 0.01}};
  const Counts counts;
  const std::map<std::string, int, std::less<>> occupancy{{"gate", 2}};
  const vision::ClassNames names({"person"});
  draw_scene(frame, {tracks, zones, lines, counts, occupancy, names});
  const auto changed = [&](cv::Rect r) { return cv::norm(frame(r), before(r), cv::NORM_L1) > 0; };
  EXPECT_TRUE(changed({200, 550, 20, 20})) << "the zone's fill";
  EXPECT_TRUE(changed({800, 640, 300, 10})) << "the line";
  EXPECT_TRUE(changed({520, 440, 60, 50})) << "the trail";
  EXPECT_TRUE(changed({600, 301, 40, 20})) << "the id tag";
  EXPECT_TRUE(changed({600, 150, 3, 50})) << "the track's own box";
  // The line's arrow points into its in side (below) from the middle of the segment (x 928).
  EXPECT_TRUE(changed({920, 660, 16, 30})) << "the arrow, below the line";
  EXPECT_FALSE(changed({920, 600, 16, 40})) << "nothing above the line's middle";
  EXPECT_FALSE(changed({900, 100, 100, 100})) << "nothing is drawn elsewhere";
}

TEST(Draw, ATrackPredictedThroughAMissShowsItsBox) {
  cv::Mat frame(480, 640, CV_8UC3, cv::Scalar(40, 40, 40));
  const cv::Mat before = frame.clone();
  Track t;
  t.id = 3;
  t.box = {100, 100, 200, 300};
  t.seen = false;
  const std::vector<Track> tracks{t};
  const std::vector<config::ZoneConfig> zones;
  const std::vector<config::LineConfig> lines;
  const Counts counts;
  const std::map<std::string, int, std::less<>> occupancy;
  const vision::ClassNames names({"person"});
  draw_scene(frame, {tracks, zones, lines, counts, occupancy, names});
  const auto changed = [&](cv::Rect r) { return cv::norm(frame(r), before(r), cv::NORM_L1) > 0; };
  EXPECT_TRUE(changed({99, 150, 3, 50})) << "its left edge";
  EXPECT_TRUE(changed({198, 150, 3, 50})) << "its right edge";
  EXPECT_FALSE(changed({110, 110, 80, 150})) << "its inside is left as it was";
}

}  // namespace
}  // namespace yolo::tracking
