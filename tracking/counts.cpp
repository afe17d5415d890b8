// SPDX-License-Identifier: Apache-2.0
#include "tracking/counts.h"

#include <cstdio>
#include <ctime>
#include <stdexcept>

#include "text/time_format.h"

namespace yolo::tracking {

namespace {

nlohmann::json tallies_json(const std::map<std::string, Tally>& tallies) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [label, t] : tallies) j[label] = {{"in", t.in}, {"out", t.out}};
  return j;
}

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw std::runtime_error(where + ": " + what);
}

std::map<std::string, Tally> tallies_from(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) bad(where, "expected {\"CLASS\": {\"in\": N, \"out\": N}, ...}");
  std::map<std::string, Tally> out;
  for (const auto& [label, t] : j.items()) {
    if (!t.is_object() || !t.contains("in") || !t.contains("out") || !t["in"].is_number_integer() ||
        !t["out"].is_number_integer()) {
      bad(where + "." + label, "expected {\"in\": N, \"out\": N} with whole numbers");
    }
    out[label] = {t["in"].get<std::int64_t>(), t["out"].get<std::int64_t>()};
  }
  return out;
}

}  // namespace

nlohmann::json to_json(const Counts& counts) {
  nlohmann::json places = nlohmann::json::array();
  for (const PlaceCounts& p : counts.places) {
    nlohmann::json hours = nlohmann::json::object();
    for (const auto& [hour, tallies] : p.hours) hours[hour] = tallies_json(tallies);
    places.push_back({{"camera", p.camera},
                      {"name", p.name},
                      {"kind", p.line ? "line" : "zone"},
                      {"since", text::iso8601_utc(p.since)},
                      {"total", tallies_json(p.total)},
                      {"hours", std::move(hours)}});
  }
  return {{"places", std::move(places)}};
}

Counts counts_from_json(const nlohmann::json& json) {
  if (!json.is_object() || !json.contains("places") || !json["places"].is_array()) {
    bad("counts", "expected {\"places\": [...]} as the daemon writes it");
  }
  Counts counts;
  for (std::size_t i = 0; i < json["places"].size(); ++i) {
    const nlohmann::json& j = json["places"][i];
    const std::string where = "places[" + std::to_string(i) + "]";
    for (const char* key : {"camera", "name", "kind", "since"}) {
      if (!j.contains(key) || !j[key].is_string()) bad(where + "." + key, "missing or not text");
    }
    PlaceCounts p;
    p.camera = j["camera"];
    p.name = j["name"];
    const std::string kind = j["kind"];
    if (kind != "line" && kind != "zone") bad(where + ".kind", "must be line or zone");
    p.line = kind == "line";
    const auto since = text::parse_iso8601_utc(j["since"].get<std::string>());
    if (!since) bad(where + ".since", "not a UTC time such as 2026-11-28T07:00:00.000Z");
    p.since = *since;
    p.total = tallies_from(j.value("total", nlohmann::json::object()), where + ".total");
    const nlohmann::json hours = j.value("hours", nlohmann::json::object());
    if (!hours.is_object()) bad(where + ".hours", "expected {\"HOUR\": {...}, ...}");
    for (const auto& [hour, tallies] : hours.items()) {
      if (!hour_start(hour)) {
        bad(where + ".hours." + hour, "not a local hour such as 2026-11-28T08:00+01:00");
      }
      p.hours[hour] = tallies_from(tallies, where + ".hours." + hour);
    }
    counts.places.push_back(std::move(p));
  }
  return counts;
}

std::string local_hour(std::chrono::system_clock::time_point time) {
  const std::time_t t = std::chrono::system_clock::to_time_t(time);
  std::tm local{};
  localtime_r(&t, &local);
  char text[64];
  const std::size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:00%z", &local);
  // ISO 8601's offset has a colon: +0100 -> +01:00.
  if (n < 5) return std::string(text, n);
  return std::string(text, n - 2) + ":" + std::string(text + n - 2, 2);
}

std::optional<std::chrono::system_clock::time_point> hour_start(std::string_view key) {
  const std::string s(key);
  std::tm tm{};
  char sign = 0;
  int offset_h = 0;
  int offset_m = 0;
  int used = 0;
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:00%c%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &sign, &offset_h, &offset_m, &used) != 7 ||
      used != static_cast<int>(s.size()) || s.size() != 22 || (sign != '+' && sign != '-') ||
      tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour < 0 ||
      tm.tm_hour > 23 || offset_h < 0 || offset_h > 23 || offset_m < 0 || offset_m > 59) {
    return std::nullopt;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  // The local clock's reading as if it were UTC, less the offset: the instant.
  const auto offset = std::chrono::minutes((sign == '-' ? -1 : 1) * (offset_h * 60 + offset_m));
  return std::chrono::system_clock::from_time_t(timegm(&tm)) - offset;
}

}  // namespace yolo::tracking
