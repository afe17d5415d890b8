// SPDX-License-Identifier: Apache-2.0
#include "detector/motion_gate.h"

#include <algorithm>
#include <utility>

#include "vision/nms.h"

namespace yolo::detector {
namespace {

// A box found again at IoU >= this with one kept (same class) has not moved: detectors place a
// still object's box within a few pixels, a car at walking pace moves it more than this in 0.2 s.
constexpr float kStillIou = 0.85f;

// A kept box mostly inside a crop that was detected again is replaced by what that crop found
// (the object moved, left or is still there and found anew); one mostly outside stays.
constexpr float kReplacedInside = 0.5f;

float share_inside(const vision::Box& box, const cv::Rect& crop) {
  const float x1 = std::max(box.x1, static_cast<float>(crop.x));
  const float y1 = std::max(box.y1, static_cast<float>(crop.y));
  const float x2 = std::min(box.x2, static_cast<float>(crop.x + crop.width));
  const float y2 = std::min(box.y2, static_cast<float>(crop.y + crop.height));
  const float inside = std::max(0.0f, x2 - x1) * std::max(0.0f, y2 - y1);
  return box.area() > 0 ? inside / box.area() : 1.0f;
}

void add(DetectTimings& sum, const DetectTimings& t) {
  sum.preprocess_ms += t.preprocess_ms;
  sum.inference_ms += t.inference_ms;
  sum.postprocess_ms += t.postprocess_ms;
}

}  // namespace

const char* pass_name(Pass pass) {
  switch (pass) {
    case Pass::kWhole:
      return "whole";
    case Pass::kRegions:
      return "regions";
    case Pass::kStill:
      return "still";
  }
  return "whole";
}

MotionGate::MotionGate(MotionGateSettings settings)
    : settings_(std::move(settings)), motion_(settings_.motion) {}

GatedDetections MotionGate::detect(const cv::Mat& bgr, Clock::time_point time, cv::Size input,
                                   const vision::NmsOptions& nms, const Run& run, bool whole) {
  GatedDetections out;
  out.motion = motion_.detect(bgr);
  // The motion detector starts again on the first frame and on a new frame size (`started`).
  const bool due = !last_whole_ ||
                   time - *last_whole_ >= std::chrono::duration<double>(settings_.full_frame_s) ||
                   time < *last_whole_;
  const bool whole_pass = whole || due || out.motion.whole_frame_change || out.motion.started;
  vision::RegionPlan plan;
  if (!whole_pass) {
    std::vector<vision::Box> look = out.motion.boxes;
    for (const Kept& k : kept_) {
      if (k.moving) look.push_back(k.detection.box);
    }
    plan = vision::plan_regions(look, bgr.size(), input, settings_.regions);
  }
  if (whole_pass || plan.whole_frame) {
    settle(run(bgr, &out.timings), {});
    out.pass = Pass::kWhole;
    out.runs = 1;
    last_whole_ = time;
  } else if (plan.regions.empty()) {
    out.pass = Pass::kStill;
  } else {
    std::vector<vision::Detections> per_region;
    for (const cv::Rect& crop : plan.regions) {
      DetectTimings t;
      per_region.push_back(run(bgr(crop), &t));
      add(out.timings, t);
    }
    std::vector<Kept> outside;
    for (const Kept& k : kept_) {
      const bool seen_again =
          std::any_of(plan.regions.begin(), plan.regions.end(), [&](const cv::Rect& crop) {
            return share_inside(k.detection.box, crop) >= kReplacedInside;
          });
      if (!seen_again) outside.push_back(k);
    }
    vision::Detections found = vision::join_region_detections(per_region, plan.regions, nms);
    settle(std::move(found), std::move(outside));
    // A kept box mostly outside a crop and the piece of it the crop found are one object.
    vision::Detections all;
    for (const Kept& k : kept_) all.push_back(k.detection);
    const vision::Detections survivors = vision::nms(all, nms);
    std::erase_if(kept_, [&](const Kept& k) {
      return std::none_of(survivors.begin(), survivors.end(), [&](const vision::Detection& d) {
        return d.box == k.detection.box && d.class_id == k.detection.class_id;
      });
    });
    out.pass = Pass::kRegions;
    out.runs = static_cast<int>(plan.regions.size());
    out.regions = std::move(plan.regions);
  }
  for (const Kept& k : kept_) out.detections.push_back(k.detection);
  return out;
}

void MotionGate::settle(vision::Detections found, std::vector<Kept> keep) {
  for (vision::Detection& d : found) {
    const bool still = std::any_of(kept_.begin(), kept_.end(), [&](const Kept& k) {
      return k.detection.class_id == d.class_id && vision::iou(k.detection.box, d.box) >= kStillIou;
    });
    keep.push_back({std::move(d), !still});
  }
  kept_ = std::move(keep);
}

}  // namespace yolo::detector
