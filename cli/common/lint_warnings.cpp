// SPDX-License-Identifier: Apache-2.0
#include "cli/common/lint_warnings.h"

#include <cstdio>

namespace yolo::cli {

void print_lint_warnings(const std::string& model,
                         const std::vector<runtime::LintFinding>& findings) {
  if (findings.empty()) return;
  for (const auto& finding : findings) {
    std::fprintf(stderr, "warning: %s: %s\n", model.c_str(), runtime::to_string(finding).c_str());
  }
  std::fprintf(stderr, "warning: %s: %zu finding(s); details: yolo-edge inspect --lint %s\n",
               model.c_str(), findings.size(), model.c_str());
}

}  // namespace yolo::cli
