// SPDX-License-Identifier: Apache-2.0
#include "telemetry/firmware_replies.h"

#include <map>
#include <string>

#include "telemetry/kernel_file.h"

namespace yolo::telemetry {

namespace {

// The text after '=' in "key=value" when the key starts with `key_prefix`.
std::optional<std::string_view> value_of(std::string_view reply, std::string_view key_prefix) {
  reply = trim(reply);
  const std::size_t equals = reply.find('=');
  if (equals == std::string_view::npos || !reply.starts_with(key_prefix)) return std::nullopt;
  return reply.substr(equals + 1);
}

// "1.54489000A" -> 1.54489 when the unit is `unit`.
std::optional<double> quantity(std::string_view text, char unit) {
  if (text.empty() || text.back() != unit) return std::nullopt;
  text.remove_suffix(1);
  return parse_double(text);
}

}  // namespace

std::optional<std::uint32_t> parse_throttled(std::string_view reply) {
  const std::optional<std::string_view> value = value_of(reply, "throttled");
  if (!value) return std::nullopt;
  const std::optional<std::int64_t> word = parse_int(*value, 16);
  if (!word || *word < 0 || *word > 0xFFFFFFFF) return std::nullopt;
  return static_cast<std::uint32_t>(*word);
}

std::optional<double> parse_clock_hz(std::string_view reply) {
  const std::optional<std::string_view> value = value_of(reply, "frequency(");
  if (!value) return std::nullopt;
  const std::optional<std::int64_t> hz = parse_int(*value);
  if (!hz || *hz < 0) return std::nullopt;
  return static_cast<double>(*hz);
}

std::optional<double> parse_pmic_watts(std::string_view reply) {
  // Rail name without its _A/_V suffix -> amps, volts.
  std::map<std::string, double, std::less<>> amps;
  std::map<std::string, double, std::less<>> volts;
  while (!reply.empty()) {
    const std::size_t end = reply.find('\n');
    const std::string_view line = trim(reply.substr(0, end));
    reply = end == std::string_view::npos ? std::string_view() : reply.substr(end + 1);

    const std::size_t space = line.find(' ');
    const std::size_t equals = line.find('=');
    if (space == std::string_view::npos || equals == std::string_view::npos || space < 2) {
      continue;
    }
    const std::string_view name = line.substr(0, space);
    const std::string_view rail = name.substr(0, name.size() - 2);
    const std::string_view value = line.substr(equals + 1);
    if (name.ends_with("_A")) {
      if (const auto a = quantity(value, 'A')) amps[std::string(rail)] = *a;
    } else if (name.ends_with("_V")) {
      if (const auto v = quantity(value, 'V')) volts[std::string(rail)] = *v;
    }
  }
  std::optional<double> watts;
  for (const auto& [rail, a] : amps) {
    const auto v = volts.find(rail);
    if (v != volts.end()) watts = watts.value_or(0) + a * v->second;
  }
  return watts;
}

}  // namespace yolo::telemetry
