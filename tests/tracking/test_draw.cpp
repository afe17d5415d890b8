// SPDX-License-Identifier: Apache-2.0
// Drawing tracks, zones and lines (tracking/draw.cpp): the pixels change where they are.
#include "tracking/draw.h"

#include <gtest/gtest.h>

#include <opencv2/core.hpp>

namespace yolo::tracking {
namespace {

// A dark frame to draw on, and whether a part of it changed since it was made.
struct Canvas {
  Canvas(int width, int height)
      : frame(height, width, CV_8UC3, cv::Scalar(40, 40, 40)), before(frame.clone()) {}
  bool changed(cv::Rect r) const { return cv::norm(frame(r), before(r), cv::NORM_L1) > 0; }

  cv::Mat frame;
  const cv::Mat before;
};

Track track(int id, vision::Box box) {
  Track t;
  t.id = id;
  t.box = box;
  return t;
}

TEST(Draw, ZonesLinesTrailsAndIdsAppearWhereTheyAre) {
  Canvas canvas(1280, 720);
  Track t = track(12, {600, 100, 680, 300});
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
  draw_scene(canvas.frame, {tracks, zones, lines, counts, occupancy, names});
  EXPECT_TRUE(canvas.changed({200, 550, 20, 20})) << "the zone's fill";
  EXPECT_TRUE(canvas.changed({800, 640, 300, 10})) << "the line";
  EXPECT_TRUE(canvas.changed({520, 440, 60, 50})) << "the trail";
  EXPECT_TRUE(canvas.changed({600, 301, 40, 20})) << "the id tag";
  EXPECT_TRUE(canvas.changed({600, 150, 3, 50})) << "the track's own box";
  // The line's arrow points into its in side (below) from the middle of the segment (x 928).
  EXPECT_TRUE(canvas.changed({920, 660, 16, 30})) << "the arrow, below the line";
  EXPECT_FALSE(canvas.changed({920, 600, 16, 40})) << "nothing above the line's middle";
  EXPECT_FALSE(canvas.changed({900, 100, 100, 100})) << "nothing is drawn elsewhere";
}

TEST(Draw, ATrackPredictedThroughAMissShowsItsBox) {
  Canvas canvas(640, 480);
  Track t = track(3, {100, 100, 200, 300});
  t.seen = false;
  const std::vector<Track> tracks{t};
  const std::vector<config::ZoneConfig> zones;
  const std::vector<config::LineConfig> lines;
  const Counts counts;
  const std::map<std::string, int, std::less<>> occupancy;
  const vision::ClassNames names({"person"});
  draw_scene(canvas.frame, {tracks, zones, lines, counts, occupancy, names});
  EXPECT_TRUE(canvas.changed({99, 150, 3, 50})) << "its left edge";
  EXPECT_TRUE(canvas.changed({198, 150, 3, 50})) << "its right edge";
  EXPECT_FALSE(canvas.changed({110, 110, 80, 150})) << "its inside is left as it was";
}

}  // namespace
}  // namespace yolo::tracking
