// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace yolo::text {

// UTC ISO 8601 with milliseconds, as field-log lines and events carry it:
// "2026-11-23T19:07:26.123Z".
std::string iso8601_utc(std::chrono::system_clock::time_point time);
// UTC to the second for people to read in tables: "2026-11-23 19:07:26".
std::string readable_utc(std::chrono::system_clock::time_point time);

// The time iso8601_utc wrote; nullopt for any other text.
std::optional<std::chrono::system_clock::time_point> parse_iso8601_utc(std::string_view text);

}  // namespace yolo::text
