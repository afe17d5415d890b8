// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/text.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>

namespace yolo::runtime {

std::string format_text(const char* format, ...) {
  std::va_list args;
  va_start(args, format);
  std::va_list again;
  va_copy(again, args);
  const int length = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  std::string text(static_cast<std::size_t>(std::max(length, 0)), '\0');
  std::vsnprintf(text.data(), text.size() + 1, format, again);
  va_end(again);
  return text;
}

double round_to(double v, double unit) {
  return std::round(v / unit) / (1.0 / unit);
}

}  // namespace yolo::runtime
