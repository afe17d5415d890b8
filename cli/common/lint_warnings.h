// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

#include "runtime/model/model_lint.h"

namespace yolo::cli {

// What `yolo-edge inspect --lint` finds in a model, printed to stderr as warnings by the commands
// that load it (detect, bench): one line per finding, then where to read more.
void print_lint_warnings(const std::string& model,
                         const std::vector<runtime::LintFinding>& findings);

}  // namespace yolo::cli
