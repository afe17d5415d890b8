// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <span>
#include <vector>

#include <opencv2/core.hpp>

#include "vision/detection.h"
#include "vision/nms.h"

namespace yolo::vision {

struct RegionOptions {
  // More crops than this cost more than one whole-frame pass (each is a full model run): the plan
  // says "whole frame" instead. 0 always runs the whole frame when anything moved.
  int max_regions = 4;

  bool operator==(const RegionOptions&) const = default;
};

// Where to run the detector on one frame.
struct RegionPlan {
  // Run on the whole frame instead of crops (too many crops, or they would cover all of it).
  bool whole_frame = false;
  // Crops in frame pixels, none overlapping another; empty when nothing moved or whole_frame.
  std::vector<cv::Rect> regions;
};

// Plans crops of `frame` for a model of input size `input` from the motion boxes (frame pixels).
// The rule:
// 1. each motion box gets a crop of the input's aspect, the input's size or, for a box bigger
//    than that, scaled up just enough to cover it (the detector scales it down again); never
//    larger than the frame in either direction;
// 2. the crop is centred on its box, then moved inside the frame;
// 3. two crops that overlap become one crop made by rule 1 and 2 for the box covering both;
//    repeated until no two crops overlap;
// 4. more than `max_regions` crops, or crops that cover all of the frame (they never overlap, so
//    only then do their areas add up to the frame's): the plan is the whole frame.
// No motion: no regions and not whole_frame. Throws std::invalid_argument on an empty frame or
// input size, or a negative max_regions.
RegionPlan plan_regions(std::span<const Box> motion, cv::Size frame, cv::Size input,
                        const RegionOptions& options = {});

// A box in a crop's pixels (as the detector reports it for that crop) in the frame's pixels.
Box crop_to_frame(const Box& box, const cv::Rect& crop);

// The detections of one frame's crops as one list in frame pixels: `per_region[i]` holds the
// detections of `regions[i]` in that crop's pixels. An object that spans two crops that meet is
// seen as two pieces, each cut at its crop's edge; pieces of the same class that touch their
// crops' edges from both sides of the same line (within 2 px) and overlap along it by half the
// shorter piece or more become one box (their union, the better score). The result then goes
// through NMS with `nms_options`. Throws std::invalid_argument when the two lists differ in
// length.
Detections join_region_detections(std::span<const Detections> per_region,
                                  std::span<const cv::Rect> regions, const NmsOptions& nms_options);

}  // namespace yolo::vision
