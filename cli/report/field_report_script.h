// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string_view>

// scripts/field-report.py, compiled into the CLI (cmake/EmbedFile.cmake), so `yolo-edge report`
// runs the plot script of its own version wherever it is installed, with no file beside it.
namespace yolo::cli {

std::string_view field_report_script();

}  // namespace yolo::cli
