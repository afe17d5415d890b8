// SPDX-License-Identifier: Apache-2.0
// What zones and lines have in common: a name (unique among them), a camera, class names and an
// anchor; their members are described in places.h.
#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <utility>

#include "config/sections/places.h"
#include "config/sections/sections.h"

namespace yolo::config::section_files {

std::string place_name_rule(const Value& value) {
  const std::string& s = std::get<std::string>(value);
  if (s.empty()) return "is empty: name it, e.g. gate";
  if (s.size() > 64) return "is longer than 64 characters: use a shorter name";
  const bool ok = std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
  if (!ok) {
    return "'" + s +
           "' has characters other than letters, digits, _ and -: it names MQTT topics and "
           "metric labels, so use e.g. front_door";
  }
  return "";
}

std::string camera_rule(const Value& value) {
  const std::string& s = std::get<std::string>(value);
  if (s == kMainCamera) return "";
  return "'" + s + "' is not a camera: the daemon has one, named " + std::string(kMainCamera);
}

void check_places(const std::vector<ZoneConfig>& zones, const std::vector<LineConfig>& lines,
                  Problems& problems) {
  std::map<std::pair<std::string, std::string>, std::string> names;
  const auto claim = [&](const std::string& camera, const std::string& name,
                         const std::string& key) {
    const auto [it, fresh] = names.emplace(std::make_pair(camera, name), key);
    if (fresh || !problems.usable(key + ".name")) return;
    problems.add(key + ".name", problems.written_at(key + ".name"),
                 "'" + name + "' is already the name of " + it->second + " on camera " + camera +
                     ": zones and lines of a camera need names of their own");
  };
  for (std::size_t i = 0; i < zones.size(); ++i) {
    claim(zones[i].camera, zones[i].name, "zones[" + std::to_string(i) + "]");
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string key = "lines[" + std::to_string(i) + "]";
    claim(lines[i].camera, lines[i].name, key);
    check_line(lines[i], key, problems);
  }
}

}  // namespace yolo::config::section_files
