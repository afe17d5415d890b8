// SPDX-License-Identifier: Apache-2.0
#include "text/time_format.h"

#include <cstdio>
#include <ctime>

namespace yolo::text {

std::string iso8601_utc(std::chrono::system_clock::time_point time) {
  using namespace std::chrono;
  const auto ms = floor<milliseconds>(time);
  const auto whole = floor<std::chrono::seconds>(ms);
  const std::time_t seconds = system_clock::to_time_t(whole);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  const auto millis = (ms - whole).count();
  // Room for any int the fields could hold, so the format cannot be cut.
  char text[96];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<int>(millis));
  return text;
}

}  // namespace yolo::text
