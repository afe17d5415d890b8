// SPDX-License-Identifier: Apache-2.0
#pragma once

// Numbers and lists as the project writes them in messages, reports and JSON: one definition of
// each, used by the runtime, the daemon and the CLI alike.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace yolo::text {

// printf into a string as long as the text needs.
[[gnu::format(printf, 1, 2)]] std::string format(const char* format, ...);

// `v` with `decimals` digits after the point: fixed(12.345, 1) is "12.3".
std::string fixed(double v, int decimals);
// The same, or "n/a" for a reading that is absent (a sensor the device does not have).
std::string fixed(const std::optional<double>& v, int decimals);

// A duration as messages and reports write it: "0.4 s", "2 s", "30 s", "2.5 min", "3.1 h" (one
// decimal under 10 s, whole seconds under 2 minutes, then minutes, then hours from 2 hours).
std::string duration_text(double seconds);
template <typename Rep, typename Period>
std::string duration_text(std::chrono::duration<Rep, Period> d) {
  return duration_text(std::chrono::duration<double>(d).count());
}

// `v` rounded to `decimals` places, as numbers are written into JSON: 0.871, not 0.87099999.
double rounded(double v, int decimals);

// The items with `separator` between them: joined({"a", "b"}, ", ") is "a, b".
template <typename Range>
std::string joined(const Range& items, std::string_view separator = ", ") {
  std::string text;
  bool first = true;
  for (const auto& item : items) {
    if (!first) text += separator;
    text += item;
    first = false;
  }
  return text;
}

}  // namespace yolo::text
