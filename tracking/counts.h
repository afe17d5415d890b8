// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace yolo::tracking {

// Crossings of a line in each direction, or entries into (in) and exits from (out) a zone.
struct Tally {
  std::int64_t in = 0;
  std::int64_t out = 0;

  bool operator==(const Tally&) const = default;
};

// What one zone or line has counted, by class label.
struct PlaceCounts {
  std::string camera;
  std::string name;
  bool line = false;
  // When counting started (the place was first configured, or its counts were reset).
  std::chrono::system_clock::time_point since{};
  std::map<std::string, Tally> total;
  // By local hour, keyed "2026-11-28T08:00+01:00" (the hour's start, with the UTC offset then),
  // the last 7 days' hours.
  std::map<std::string, std::map<std::string, Tally>> hours;

  bool operator==(const PlaceCounts&) const = default;
};

// Every place's counts: what the daemon keeps across restarts in its state folder.
struct Counts {
  std::vector<PlaceCounts> places;

  bool operator==(const Counts&) const = default;
};

// As JSON: {"places": [{"camera", "name", "kind": "line" or "zone", "since": UTC ISO 8601 with
// milliseconds ("2026-11-28T07:00:00.000Z", as events' times: readable in the file and exact to
// the millisecond), "total": {"car": {"in": 41, "out": 17}, ...}, "hours":
// {"2026-11-28T08:00+01:00":
// {"car": {"in": 4, "out": 2}}, ...}}, ...]}.
nlohmann::json to_json(const Counts& counts);
// Throws std::runtime_error naming the key that is wrong (as "places[2].hours.X") and what was
// expected there, when `json` is not what to_json writes.
Counts counts_from_json(const nlohmann::json& json);

// The local hour of `time` as PlaceCounts::hours keys it.
std::string local_hour(std::chrono::system_clock::time_point time);
// When the hour keyed `key` (as local_hour() writes it) began; nullopt for any other text.
std::optional<std::chrono::system_clock::time_point> hour_start(std::string_view key);

}  // namespace yolo::tracking
