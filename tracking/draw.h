// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "config/sections/lines.h"
#include "config/sections/zones.h"
#include "tracking/counts.h"
#include "tracking/track.h"
#include "vision/class_names.h"

namespace yolo::tracking {

// What draw_scene() puts on a frame.
struct SceneDrawing {
  const std::vector<Track>& tracks;
  const std::vector<config::ZoneConfig>& zones;
  const std::vector<config::LineConfig>& lines;
  const Counts& counts;
  // Tracks in each zone now, by zone name.
  const std::map<std::string, int, std::less<>>& occupancy;
  const vision::ClassNames& names;
};

// Draws in place, over the detections' boxes (vision::annotate, drawn first): each track's trail,
// a thin box (so that a track predicted through a miss shows too) and its id ("#12") under the
// box's bottom-left corner; each zone (outline, a light fill, its name with how many are in it
// now and how many entered); each line (the segment, an arrow into its in side, its name with the
// in and out counts). Sized from the image as annotate() is.
void draw_scene(cv::Mat& bgr, const SceneDrawing& scene);

}  // namespace yolo::tracking
