// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <string>

namespace yolo::text {

// UTC ISO 8601 with milliseconds, as field-log lines and events carry it:
// "2026-11-23T19:07:26.123Z".
std::string iso8601_utc(std::chrono::system_clock::time_point time);

}  // namespace yolo::text
