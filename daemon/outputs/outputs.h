// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "daemon/core/output_context.h"
#include "daemon/core/publisher.h"

namespace yolo::daemon {

// One output the daemon runs: its name (as in the status's "outputs") and how it is made.
struct OutputRow {
  std::string_view name;
  std::unique_ptr<Publisher> (*make)(const OutputContext& context);
};

// Every output, one row each, in the order they get events and are stopped (the field log first:
// it writes the stop event). Adding an output is a folder of its own and a row here.
std::span<const OutputRow> output_table();

// The metrics first (the registry every other output sets its own series on, and that the live
// view serves), then one output per row of output_table(). Throws when an output cannot be made,
// naming it.
std::vector<std::unique_ptr<Publisher>> make_outputs(OutputContext context);

}  // namespace yolo::daemon
