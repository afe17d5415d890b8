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

std::string readable_utc(std::chrono::system_clock::time_point time) {
  const std::time_t seconds =
      std::chrono::system_clock::to_time_t(std::chrono::floor<std::chrono::seconds>(time));
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[96];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &utc);
  return text;
}

std::optional<std::chrono::system_clock::time_point> parse_iso8601_utc(std::string_view text) {
  const std::string s(text);
  std::tm tm{};
  int millis = 0;
  int used = 0;
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &millis, &used) != 7 ||
      used != static_cast<int>(s.size())) {
    return std::nullopt;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return std::chrono::system_clock::from_time_t(timegm(&tm)) + std::chrono::milliseconds(millis);
}

}  // namespace yolo::text
