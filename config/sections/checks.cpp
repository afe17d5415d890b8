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
  const SectionAdder<ChecksConfig> add{t, &Config::checks};
  add("enabled", &ChecksConfig::enabled, true,
      "Now and then run a frame at both precisions and compare INT8's detections with FP32's (as "
      "yolo-edge compare does), whichever precision runs; needs an INT8 file of model.path "
      "(model.int8_path, or one quantize: auto made).");
  add("budget_percent", &ChecksConfig::budget_percent, 2.0, {.min = 0.1, .max = 50},
      "Share of one core the checks may use on average, in per cent; they run at idle priority, "
      "on time nothing else wants.");
  add("max_interval_s", &ChecksConfig::max_interval_s, 300, {.min = 10, .max = 86400},
      "One check at least this often whatever the budget and the load (then at nice 19); the "
      "status says the checks are starved when none ends for twice this.");
  add("window_min", &ChecksConfig::window_min, 60, {.min = 1, .max = 1440},
      "Minutes of checks the agreement is measured over.");
  add("drift_after_min", &ChecksConfig::drift_after_min, 10, {.min = 1, .max = 1440},
      "Minutes the agreement must stay under model.auto_min_map50 before checks.drift_action is "
      "taken.");
  add("drift_action", &ChecksConfig::drift_action, DriftAction::kWarn,
      {.choices = {"warn", "fp32", "requantize"}},
      "warn: say so on the page, in the log and the field log, and change nothing; fp32: also "
      "switch to FP32 until the next reload; requantize: run FP32 meanwhile, quantize again on "
      "the calibration reservoir's frames (half of them from the last two hours), check the new "
      "file on frames it was not calibrated on and run it once it agrees (a failure waits an "
      "hour, then longer).");
}

}  // namespace yolo::config::section_files
