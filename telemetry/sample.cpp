// SPDX-License-Identifier: Apache-2.0
#include "telemetry/sample.h"
#include "text/format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace yolo::telemetry {

namespace {

// The Pi firmware's throttle word: the raw value, and each condition now and since boot.
nlohmann::json throttle_json(const ThrottleState& t) {
  char hex[16];
  std::snprintf(hex, sizeof hex, "0x%x", t.raw);
  return {{"raw", hex},
          {key::kUnderVoltage, t.under_voltage()},
          {key::kFrequencyCapped, t.frequency_capped()},
          {key::kThrottled, t.throttled()},
          {key::kSoftTempLimit, t.soft_temp_limit()},
          {"since_boot",
           {{key::kUnderVoltage, t.under_voltage_since_boot()},
            {key::kFrequencyCapped, t.frequency_capped_since_boot()},
            {key::kThrottled, t.throttled_since_boot()},
            {key::kSoftTempLimit, t.soft_temp_limit_since_boot()}}}};
}

}  // namespace

std::optional<double> Sample::max_celsius() const {
  if (thermal.empty()) return std::nullopt;
  return std::max_element(thermal.begin(), thermal.end(),
                          [](const auto& a, const auto& b) { return a.celsius < b.celsius; })
      ->celsius;
}

nlohmann::json to_json(const Sample& s) {
  nlohmann::json j = nlohmann::json::object();
  if (!s.thermal.empty()) {
    nlohmann::json zones = nlohmann::json::object();
    for (const auto& t : s.thermal) {
      std::string key = t.type.empty() ? t.zone : t.type;
      // Laptops often have several zones of one type ("acpitz"): keep each.
      if (zones.contains(key)) key += " (" + t.zone + ")";
      zones[key] = text::rounded(t.celsius, 2);
    }
    j[key::kTempC] = std::move(zones);
  }
  if (!s.clocks.empty()) {
    nlohmann::json clocks = nlohmann::json::array();
    for (const auto& c : s.clocks) clocks.push_back(text::rounded(c.mhz, 1));
    j[key::kClockMhz] = std::move(clocks);
  }
  if (s.arm_clock_mhz) j[key::kArmClockMhz] = text::rounded(*s.arm_clock_mhz, 1);
  if (s.throttle) j[key::kThrottle] = throttle_json(*s.throttle);
  if (s.under_voltage_alarm) j["under_voltage_alarm"] = *s.under_voltage_alarm;
  if (!s.power.empty()) {
    nlohmann::json power = nlohmann::json::object();
    for (const auto& p : s.power) power[p.source] = text::rounded(p.watts, 3);
    j["power_sources_w"] = std::move(power);
  }
  if (s.power_w) j["power_w"] = text::rounded(*s.power_w, 3);
  if (s.energy_j) j["energy_j"] = text::rounded(*s.energy_j, 3);
  if (!s.cpu_busy.empty()) {
    nlohmann::json busy = nlohmann::json::array();
    for (double b : s.cpu_busy) busy.push_back(text::rounded(b, 3));
    j["cpu_busy"] = std::move(busy);
  }
  if (s.cpu_busy_total) j["cpu_busy_total"] = text::rounded(*s.cpu_busy_total, 3);
  if (s.rss_bytes) j["rss_bytes"] = *s.rss_bytes;
  return j;
}

}  // namespace yolo::telemetry
