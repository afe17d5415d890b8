// SPDX-License-Identifier: Apache-2.0
#pragma once

// Motion-gated detection for one camera (issue 42, item 3; Frigate's scheme): the model runs on
// crops where something moved, at the model's input size from the full frame (a small object
// keeps its pixels instead of being shrunk with a letterboxed 1080p frame), and on the whole frame
// every full_frame_s. Objects nobody re-detected since (they stood still) keep their last boxes,
// so a tracker given these detections keeps their tracks alive and nothing flickers off.

#include <chrono>
#include <functional>
#include <optional>
#include <vector>

#include <opencv2/core.hpp>

#include "detector/detector.h"
#include "vision/motion.h"
#include "vision/regions.h"

namespace yolo::detector {

struct MotionGateSettings {
  vision::MotionSettings motion;
  vision::RegionOptions regions;
  // Seconds between whole-frame passes.
  double full_frame_s = 10;

  bool operator==(const MotionGateSettings&) const = default;
};

// What a frame got.
enum class Pass {
  // The whole frame was detected: the first frame, full_frame_s passed, too much moved, or the
  // caller asked (a precision trial).
  kWhole,
  // Crops around motion were detected.
  kRegions,
  // Nothing moved: no model run, the last boxes kept.
  kStill,
};
const char* pass_name(Pass pass);

struct GatedDetections {
  // In frame pixels: what this frame's passes found, and the boxes kept from earlier frames where
  // nothing was detected this time.
  vision::Detections detections;
  Pass pass = Pass::kWhole;
  // The crops run (kRegions), in frame pixels.
  std::vector<cv::Rect> regions;
  // Model runs (1 for kWhole, the crops for kRegions, 0 for kStill).
  int runs = 0;
  // What the motion detector found and took (ms).
  vision::MotionResult motion;
  // The model's steps summed over its runs.
  DetectTimings timings;
};

class MotionGate {
 public:
  using Clock = std::chrono::steady_clock;
  // Runs the model on an image (the whole frame or a crop), detections in that image's pixels.
  using Run = std::function<vision::Detections(const cv::Mat& image, DetectTimings* timings)>;

  // Throws std::invalid_argument on settings out of range (vision::MotionDetector's).
  explicit MotionGate(MotionGateSettings settings);

  // One frame (BGR) at `time` (its capture or scene time): motion found, then `run` on what the
  // plan says, for a model of input size `input`. `whole` forces a whole-frame pass. `nms` joins
  // detections of crops that meet.
  GatedDetections detect(const cv::Mat& bgr, Clock::time_point time, cv::Size input,
                         const vision::NmsOptions& nms, const Run& run, bool whole = false);

 private:
  MotionGateSettings settings_;
  vision::MotionDetector motion_;
  // A box every pass so far left standing, in frame pixels; `moving` while it was new or moved at
  // its last detection: the next frame looks there again, motion or not, because an object that
  // drives off leaves no motion where it was (the background never held it) and its box would
  // otherwise stay behind (Frigate likewise detects around tracked objects that move).
  struct Kept {
    vision::Detection detection;
    bool moving = true;
  };
  // `found` replaces `kept_` (or the part of it `keep` leaves), each marked moving unless it
  // matches a box kept before.
  void settle(vision::Detections found, std::vector<Kept> keep);

  std::vector<Kept> kept_;
  std::optional<Clock::time_point> last_whole_;
};

}  // namespace yolo::detector
