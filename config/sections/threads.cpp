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
  const SectionAdder<ThreadsConfig> add{t, "threads", &Config::threads};
  using F = FieldType;
  add({.name = "mode",
       .type = F::kEnum,
       .default_value = text("adaptive"),
       .choices = {kThreadModeNames.begin(), kThreadModeNames.end()},
       .description = "fixed: threads.count; adaptive: the fastest count measured; efficiency: "
                      "the fewest within threads.margin of it."},
      &ThreadsConfig::mode);
  add({.name = "count",
       .type = F::kInt,
       .default_value = whole(0),
       .min = 0,
       .max = 256,
       .description = "Inference threads in fixed mode; 0 means one per CPU core."},
      &ThreadsConfig::count);
  add({.name = "max",
       .type = F::kInt,
       .default_value = whole(0),
       .min = 0,
       .max = 256,
       .description = "Most threads the adaptive and efficiency modes try; 0 means one per CPU "
                      "core."},
      &ThreadsConfig::max);
  add({.name = "margin",
       .type = F::kFloat,
       .default_value = 0.1,
       .min = 0,
       .max = 1,
       .description = "Efficiency mode: latency a thread count may lose to the fastest, as a "
                      "fraction (0.1 = 10%)."},
      &ThreadsConfig::margin);
}

}  // namespace yolo::config::section_files
