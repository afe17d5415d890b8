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
  const SectionAdder<DetectConfig> add{t, "detect", &Config::detect};
  using F = FieldType;
  add({.name = "conf",
       .type = F::kFloat,
       .default_value = 0.25,
       .min = 0,
       .max = 1,
       .description = "Lowest score a detection needs to be reported."},
      &DetectConfig::conf);
  add({.name = "iou",
       .type = F::kFloat,
       .default_value = 0.45,
       .min = 0,
       .max = 1,
       .description = "Overlap (IoU) above which non-maximum suppression drops the lower-scoring "
                      "box."},
      &DetectConfig::iou);
  add({.name = "classes",
       .type = F::kIntList,
       .default_value = none(),
       .min = 0,
       .max = 65535,
       .description = "Class ids to report, e.g. [0, 2] for COCO person and car; empty reports "
                      "every class."},
      &DetectConfig::classes);
  add({.name = "max_detections",
       .type = F::kInt,
       .default_value = whole(300),
       .min = 1,
       .max = 10000,
       .description = "Most detections kept per frame, highest scores first."},
      &DetectConfig::max_detections);
  add({.name = "agnostic_nms",
       .type = F::kBool,
       .default_value = false,
       .description = "Suppress overlapping boxes across classes too, not only within a class."},
      &DetectConfig::agnostic_nms);
}

}  // namespace yolo::config::section_files
