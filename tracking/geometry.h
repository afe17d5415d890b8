// SPDX-License-Identifier: Apache-2.0
#pragma once

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

// A counting line placed on a frame: which side a point is on, and how far.
class PlacedLine {
 public:
  PlacedLine(cv::Point2f from, cv::Point2f to, Side in);
  // Signed distance in pixels from the line through the segment: > 0 on the in side.
  float distance(cv::Point2f p) const;
  // Where p projects along the segment: 0 at `from`, 1 at `to`.
  float along(cv::Point2f p) const;
  float length() const { return length_; }
  cv::Point2f from() const { return from_; }
  cv::Point2f to() const { return to_; }

 private:
  cv::Point2f from_, to_;
  float length_;
  // +1 or -1: the sign of the cross product on the in side.
  float in_sign_;
};

}  // namespace yolo::tracking
