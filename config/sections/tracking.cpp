// SPDX-License-Identifier: Apache-2.0
// The tracking section: how detections become tracked objects (tracking/tracker.h).
#include "config/schema_rows.h"
#include "config/sections/sections.h"
#include "text/format.h"

namespace yolo::config::section_files {

using namespace rows;

SectionSpec tracking_spec() {
  return {"tracking",
          "Detections into tracked objects (ByteTrack's association): what zones, lines and "
          "events are made of; docs/events.md."};
}

void add_tracking_fields(std::vector<FieldSpec>& t) {
  const SectionAdder<TrackingConfig> add{t, &Config::tracking};
  add("enabled", &TrackingConfig::enabled, true,
      "Track objects across frames (ids, zones, lines, events). Off: each frame's boxes only, as "
      "before.");
  add("high_score", &TrackingConfig::high_score, 0.5, {.min = 0, .max = 1},
      "Boxes scoring at least this are matched to tracks first.");
  add("low_score", &TrackingConfig::low_score, 0.1, {.min = 0, .max = 1},
      "Boxes from this score up to high_score are matched second, only to tracks still unmatched: "
      "they carry a track through an occlusion or a dip in confidence. The detector keeps boxes "
      "down to it for the tracker; every output still sees only those above detect.conf.");
  add("new_score", &TrackingConfig::new_score, 0.6, {.min = 0, .max = 1},
      "A box that matches no track starts one only at this score or above.");
  add("match_iou", &TrackingConfig::match_iou, 0.2, {.min = 0.01, .max = 1},
      "Least overlap (IoU) between a track's predicted box and a box for the two to be matched.");
  add("confirm_frames", &TrackingConfig::confirm_frames, 3, {.min = 1, .max = 100},
      "Frames a new track must be seen in before it is reported (a new event).");
  add("lost_s", &TrackingConfig::lost_s, 1.5, {.min = 0.05, .max = 600},
      "Seconds a track is kept while unseen (its box predicted) before it ends. In seconds, not "
      "frames: the frame rate changes with precision and threads.");
}

void check_tracking(const TrackingConfig& t, Problems& problems) {
  if (t.low_score > t.high_score && problems.usable("tracking.low_score")) {
    problems.add("tracking.low_score", problems.written_at("tracking.low_score"),
                 "is above tracking.high_score (" + text::fixed(t.high_score, 2) +
                     "): the second pass takes boxes from low_score up to high_score, so set it "
                     "lower");
  }
  if (t.new_score < t.low_score && problems.usable("tracking.new_score")) {
    problems.add("tracking.new_score", problems.written_at("tracking.new_score"),
                 "is below tracking.low_score (" + text::fixed(t.low_score, 2) +
                     "): boxes under low_score are never tracked, so a track cannot start there");
  }
}

}  // namespace yolo::config::section_files
