// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <vector>

#include <opencv2/core/types.hpp>

#include "config/sections/zones.h"
#include "tracking/vocabulary.h"
#include "vision/detection.h"

namespace yolo::tracking {

// A frame point (fractions) on a frame of `size` (pixels).
cv::Point2f place(const config::FramePoint& p, cv::Size size);
// The point of `box` that stands for the object.
cv::Point2f anchor_point(const vision::Box& box, Anchor anchor);
// Whether `p` is inside the polygon (even-odd rule); a point on an edge counts as inside.
bool inside(const std::vector<cv::Point2f>& polygon, cv::Point2f p);
// Whether segments ab and cd share a point (touching counts).
bool segments_meet(cv::Point2f a, cv::Point2f b, cv::Point2f c, cv::Point2f d);

// Where one object's anchor stands against one line, from frame to frame.
struct LineStanding {
  // The side it was last clearly on (true: the in side); none until it has been on one.
  std::optional<bool> in_side;
  // Its previous point.
  std::optional<cv::Point2f> last;
  // Whether its path since it was last clearly on a side met the segment.
  bool met = false;
};

// A counting line placed on a frame: which side a point is on, and the crossings of a path.
class PlacedLine {
 public:
  // `margin`: how far (pixels) from the line a point must be to be on a side (the hysteresis).
  PlacedLine(cv::Point2f from, cv::Point2f to, Side in, float margin = 0);
  // Signed distance in pixels from the line through the segment: > 0 on the in side.
  float distance(cv::Point2f p) const;
  // Where p projects along the segment: 0 at `from`, 1 at `to`.
  float along(cv::Point2f p) const;
  // The side p is clearly on (true: in): farther than the margin from the line, and beside the
  // segment rather than past its ends (by at most the margin); none otherwise.
  std::optional<bool> side(cv::Point2f p) const;
  // Moves an anchor to `p`: a crossing when p is clearly on the other side than the anchor last
  // was AND its path from there (through every point since) met the segment, so jitter on the
  // line and a path round either end count nothing, and a crossing between two frames counts.
  std::optional<Direction> advance(LineStanding& standing, cv::Point2f p) const;
  float length() const { return length_; }
  cv::Point2f from() const { return from_; }
  cv::Point2f to() const { return to_; }

 private:
  cv::Point2f from_, to_;
  float length_;
  float margin_;
  // +1 or -1: the sign of the cross product on the in side.
  float in_sign_;
};

}  // namespace yolo::tracking
