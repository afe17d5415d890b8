// SPDX-License-Identifier: Apache-2.0
#include "text/format.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>

namespace yolo::text {

std::string format(const char* format, ...) {
  std::va_list args;
  va_start(args, format);
  std::va_list again;
  va_copy(again, args);
  const int length = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  std::string out(static_cast<std::size_t>(std::max(length, 0)), '\0');
  std::vsnprintf(out.data(), out.size() + 1, format, again);
  va_end(again);
  return out;
}

std::string fixed(double v, int decimals) {
  return format("%.*f", decimals, v);
}

std::string fixed(const std::optional<double>& v, int decimals) {
  return v ? fixed(*v, decimals) : "n/a";
}

std::string duration_text(double seconds) {
  if (seconds < 10) {
    std::string s = format("%.1f", seconds);
    if (s.ends_with(".0")) s.resize(s.size() - 2);
    return s + " s";
  }
  if (seconds < 120) return format("%.0f s", seconds);
  if (seconds < 2 * 3600) return format("%.1f min", seconds / 60);
  return format("%.1f h", seconds / 3600);
}

double rounded(double v, int decimals) {
  // Divided by a power of ten, not multiplied by 0.1: 3 / 10 is 0.3, 3 * 0.1 is
  // 0.30000000000000004.
  const double scale = std::pow(10.0, decimals);
  return std::round(v * scale) / scale;
}

}  // namespace yolo::text
