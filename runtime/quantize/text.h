// SPDX-License-Identifier: Apache-2.0
#pragma once

// Numbers in the quantizer's messages and report.

#include <string>

namespace yolo::runtime {

// printf into a string as long as the text needs.
[[gnu::format(printf, 1, 2)]] std::string format_text(const char* format, ...);

// `v` rounded to a multiple of `unit` (0.01, 0.001), as the report writes numbers.
double round_to(double v, double unit);

}  // namespace yolo::runtime
