// SPDX-License-Identifier: Apache-2.0
// The threads section: how many inference threads.
#include "config/schema_rows.h"
#include "config/sections/sections.h"

namespace yolo::config::section_files {

using namespace rows;

SectionSpec threads_spec() {
  return {"threads", "How many inference threads, fixed or chosen by measuring."};
}

void add_threads_fields(std::vector<FieldSpec>& t) {
  const SectionAdder<ThreadsConfig> add{t, &Config::threads};
  add("mode", &ThreadsConfig::mode, ThreadMode::kAdaptive,
      {.choices = as_choices(kThreadModeNames)},
      "fixed: threads.count; adaptive: the fastest count measured; efficiency: the fewest within "
      "threads.margin of it.");
  add("count", &ThreadsConfig::count, 0, {.min = 0, .max = 256},
      "Inference threads in fixed mode; 0 means one per CPU core.");
  add("max", &ThreadsConfig::max, 0, {.min = 0, .max = 256},
      "Most threads the adaptive and efficiency modes try; 0 means one per CPU core.");
  add("margin", &ThreadsConfig::margin, 0.1, {.min = 0, .max = 1},
      "Efficiency mode: latency a thread count may lose to the fastest, as a fraction (0.1 = "
      "10%).");
}

}  // namespace yolo::config::section_files
