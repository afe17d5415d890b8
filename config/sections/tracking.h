// SPDX-License-Identifier: Apache-2.0
#pragma once

namespace yolo::config {

// How detections become tracked objects (ByteTrack's association; tracking/tracker.h). Defaults,
// ranges and descriptions: config/sections/tracking.cpp.
struct TrackingConfig {
  bool enabled{};
  // Detections at or above this score are matched to tracks first.
  double high_score{};
  // Detections from this score up to high_score are matched second, only to tracks the first
  // pass left unmatched: they keep a track alive through occlusion and dips in confidence.
  double low_score{};
  // A detection that matched no track starts a new one only at or above this score.
  double new_score{};
  // Smallest IoU between a track's predicted box and a detection for the two to be matched.
  double match_iou{};
  // Frames a new track must be seen in (matched) before it is confirmed and reported.
  int confirm_frames{};
  // Seconds a track is kept, predicted, while unseen, before it ends.
  double lost_s{};

  bool operator==(const TrackingConfig&) const = default;
};

}  // namespace yolo::config
