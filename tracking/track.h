// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include <opencv2/core/types.hpp>

#include "vision/detection.h"

namespace yolo::tracking {

using SteadyTime = std::chrono::steady_clock::time_point;

// One tracked object as the tracker reports it after a frame.
struct Track {
  // Unique for the tracker's life, from 1; never reused.
  std::int64_t id = 0;
  int class_id = 0;
  // Where it is this frame (the Kalman filter's estimate), in frame pixels; predicted while unseen.
  vision::Box box;
  // The score of the detection it was matched to this frame; 0 when unseen this frame.
  float score = 0;
  // Whether a detection was matched to it this frame.
  bool seen = false;
  // Its best score so far, the frame (FrameResult index) and box of it: what a snapshot crops.
  float best_score = 0;
  std::int64_t best_frame = -1;
  vision::Box best_box;
  SteadyTime first_seen{};
  SteadyTime last_seen{};
  // Velocity of the box centre, pixels per second.
  float vx = 0;
  float vy = 0;
  // Frames it was matched in.
  int hits = 0;
  // The box centre over the last two seconds or so, oldest first (frame pixels): the trail drawn.
  std::vector<cv::Point2f> trail;

  // Seconds from its first sighting to `now`.
  double age_s(SteadyTime now) const {
    return std::chrono::duration<double>(now - first_seen).count();
  }
};

// What one frame did to the tracks.
struct TrackUpdate {
  // Confirmed tracks that are alive (seen this frame or lost for less than lost_s), by id.
  std::vector<Track> tracks;
  // Confirmed tracks that ended at this frame (lost for longer than lost_s, or every track when
  // the frame size changed or the tracker was cleared), as they were last.
  std::vector<Track> ended;
  // Ids of tracks first confirmed at this frame (each also in `tracks`).
  std::vector<std::int64_t> confirmed;
};

}  // namespace yolo::tracking
