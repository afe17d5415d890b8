// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
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

nlohmann::json to_json(const Counts& counts);
// Throws std::runtime_error naming what is wrong when `json` is not what to_json writes.
Counts counts_from_json(const nlohmann::json& json);

// The local hour of `time` as PlaceCounts::hours keys it.
std::string local_hour(std::chrono::system_clock::time_point time);

}  // namespace yolo::tracking
