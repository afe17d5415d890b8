// SPDX-License-Identifier: Apache-2.0
#pragma once

// INT8 judged where it runs (issue 41): each shadow check is one camera frame run at both
// precisions, and how well INT8 agrees with FP32 is `yolo-edge compare`'s measure
// (vision::AgreementAccumulator, FP32's detections the truth) over the checks of a rolling window,
// so a scene the camera no longer sees stops counting once the window has passed it.

#include <chrono>
#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "vision/detection.h"
#include "vision/metrics.h"

namespace yolo::detector {

// Which checks count: those of the last `span` (newer than now - span), at most `max_checks` of
// them (the newest).
struct RollingWindow {
  std::chrono::seconds span{std::chrono::hours(1)};
  std::size_t max_checks = 240;
};

// Not thread-safe: the checks' thread owns it.
class RollingAgreement {
 public:
  using Clock = std::chrono::steady_clock;

  // `count_conf`: FP32's score threshold, for INT8's box counts as compare counts them. Throws
  // std::invalid_argument for an empty span or no checks.
  RollingAgreement(RollingWindow window, float count_conf);

  // One check: what FP32 found on a frame (the truth) and what INT8 found on the same frame,
  // decoded down to vision::kPredictionConf (prediction_decode) so AP has INT8's whole curve.
  void add(Clock::time_point at, vision::Detections fp32, vision::Detections int8);
  // Forgets every check: a new INT8 file, whose agreement the old one's checks say nothing of.
  void clear();
  // Drops the checks older than the span before `now`.
  void expire(Clock::time_point now);

  std::size_t checks() const { return checks_.size(); }
  // FP32's boxes over the window's checks: how much evidence the figures stand on.
  long fp32_boxes() const;

  // The agreement over the window's checks.
  vision::Agreement agreement(long min_boxes = vision::kMinJudgedBoxes) const;
  // What a decision reads (judged_map50 of agreement()): the mAP50 over the classes FP32 found at
  // least min_boxes times, else the box-weighted AP50; empty when FP32 found nothing.
  std::optional<double> value(std::string* what = nullptr) const;
  // The same value in each of `slices` equal slices of the span ending at `now`, oldest first:
  // the trend the page draws. Empty where a slice had no check or FP32 found nothing in it.
  std::vector<std::optional<double>> trend(Clock::time_point now, int slices) const;

 private:
  struct Check {
    Clock::time_point at;
    vision::Detections fp32;
    vision::Detections int8;
  };

  RollingWindow window_;
  float count_conf_;
  std::deque<Check> checks_;
  // The last agreement() and its min_boxes, until the checks change: after a check the drift
  // watch and the status both read it, and each pass runs compare's matching over the window.
  mutable std::optional<std::pair<long, vision::Agreement>> cached_;
};

}  // namespace yolo::detector
