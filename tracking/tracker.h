// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <memory>

#include <opencv2/core/types.hpp>

#include "config/sections/tracking.h"
#include "tracking/track.h"
#include "vision/detection.h"

namespace yolo::tracking {

// A multi-object tracker after ByteTrack (Zhang et al. 2022): per class, detections at or above
// high_score are matched to tracks first by an optimal assignment on IoU with each track's
// predicted box, then those from low_score up to high_score to the tracks still unmatched; a
// constant-velocity Kalman filter predicts each box to the frame's own time, so a change of frame
// rate (precision, threads) changes nothing but the step. Not thread-safe: one caller.
class Tracker {
 public:
  explicit Tracker(const config::TrackingConfig& options);
  ~Tracker();
  Tracker(Tracker&&) noexcept;
  Tracker& operator=(Tracker&&) noexcept;

  // New options; the tracks and their ids are kept.
  void configure(const config::TrackingConfig& options);

  // One frame's detections (frame pixels, any score: those under low_score are ignored), captured
  // at `when`, frame number `frame_index`, of size `frame`. A size other than the last frame's
  // ends every track first (the camera came back at another resolution: no box carries over).
  const TrackUpdate& update(const vision::Detections& detections, SteadyTime when,
                            std::int64_t frame_index, cv::Size frame);

  // Ends every track: the next update reports them in `ended` (the camera stopped).
  void clear();

  // Tracks alive now, confirmed or not (for tests and the cost benchmark).
  std::size_t live_tracks() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace yolo::tracking
