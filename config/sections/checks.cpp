// SPDX-License-Identifier: Apache-2.0
// The checks section: INT8 judged against FP32 on the camera's own frames while the daemon runs.
#include "config/schema_rows.h"
#include "config/sections/sections.h"

namespace yolo::config::section_files {

using namespace rows;

SectionSpec checks_spec() {
  return {"checks",
          "INT8 checked against FP32 on the camera's own frames while the daemon runs, and what "
          "to do when they stop agreeing."};
}

void add_checks_fields(std::vector<FieldSpec>& t) {
  const SectionAdder<ChecksConfig> add{t, "checks", &Config::checks};
  using F = FieldType;
  add({.name = "enabled",
       .type = F::kBool,
       .default_value = true,
       .description = "Now and then run a frame at both precisions and compare INT8's detections "
                      "with FP32's (as yolo-edge compare does), whichever precision runs; needs "
                      "an INT8 file of model.path (model.int8_path, or one quantize: auto made)."},
      &ChecksConfig::enabled);
  add({.name = "budget_percent",
       .type = F::kFloat,
       .default_value = 2.0,
       .min = 0.1,
       .max = 50,
       .description = "Share of one core the checks may use on average, in per cent; they run "
                      "at idle priority, on time nothing else wants."},
      &ChecksConfig::budget_percent);
  add({.name = "max_interval_s",
       .type = F::kInt,
       .default_value = whole(300),
       .min = 10,
       .max = 86400,
       .description = "One check at least this often whatever the budget and the load (then at "
                      "nice 19); the status says the checks are starved when none ends for twice "
                      "this."},
      &ChecksConfig::max_interval_s);
  add({.name = "window_min",
       .type = F::kInt,
       .default_value = whole(60),
       .min = 1,
       .max = 1440,
       .description = "Minutes of checks the agreement is measured over."},
      &ChecksConfig::window_min);
  add({.name = "drift_after_min",
       .type = F::kInt,
       .default_value = whole(10),
       .min = 1,
       .max = 1440,
       .description = "Minutes the agreement must stay under model.auto_min_map50 before "
                      "checks.drift_action is taken."},
      &ChecksConfig::drift_after_min);
  add({.name = "drift_action",
       .type = F::kEnum,
       .default_value = text("warn"),
       .choices = {"warn", "fp32"},
       .description = "warn: say so on the page, in the log and the field log, INT8 keeps "
                      "running; fp32: also switch to FP32 until the next reload."},
      &ChecksConfig::drift_action);
}

}  // namespace yolo::config::section_files
