// SPDX-License-Identifier: Apache-2.0
// The detect section: which detections are kept.
#include "config/schema_rows.h"
#include "config/sections/sections.h"

namespace yolo::config::section_files {

using namespace rows;

SectionSpec detect_spec() {
  return {"detect", "Which detections are kept."};
}

void add_detect_fields(std::vector<FieldSpec>& t) {
  const SectionAdder<DetectConfig> add{t, &Config::detect};
  add("conf", &DetectConfig::conf, 0.25, {.min = 0, .max = 1},
      "Lowest score a detection needs to be reported.");
  add("iou", &DetectConfig::iou, 0.45, {.min = 0, .max = 1},
      "Overlap (IoU) above which non-maximum suppression drops the lower-scoring box.");
  add("classes", &DetectConfig::classes, {}, {.min = 0, .max = 65535},
      "Class ids to report, e.g. [0, 2] for COCO person and car; empty reports every class.");
  add("max_detections", &DetectConfig::max_detections, 300, {.min = 1, .max = 10000},
      "Most detections kept per frame, highest scores first.");
  add("agnostic_nms", &DetectConfig::agnostic_nms, false,
      "Suppress overlapping boxes across classes too, not only within a class.");
}

}  // namespace yolo::config::section_files
