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

std::string fewer_than_three_corners(const Value& value, std::string_view polygon,
                                     std::string_view example) {
  const auto& points = std::get<std::vector<std::vector<double>>>(value);
  if (points.size() >= 3) return "";
  return "has " + std::to_string(points.size()) + " point(s): " + std::string(polygon) +
         " needs at least three corners, e.g. " + std::string(example);
}

void check_camera(std::string& camera, const std::string& item,
                  const std::vector<CameraConfig>& cameras, Problems& problems) {
  const std::string key = item + ".camera";
  const Where written = problems.written_at(key);
  if (written.line == 0 && cameras.size() == 1) {
    camera = cameras.front().name;
    return;
  }
  const bool known = std::any_of(cameras.begin(), cameras.end(),
                                 [&](const CameraConfig& c) { return c.name == camera; });
  if (known || !problems.usable(key)) return;
  std::string names;
  for (const CameraConfig& c : cameras) names += (names.empty() ? "" : ", ") + c.name;
  problems.add(key, written,
               written.line == 0 ? "is not set, and there are " + std::to_string(cameras.size()) +
                                       " cameras: name the camera it is on (" + names + ")"
                                 : "'" + camera + "' is not a camera: the cameras are " + names);
}

void check_places(std::vector<ZoneConfig>& zones, std::vector<LineConfig>& lines,
                  const std::vector<CameraConfig>& cameras, Problems& problems) {
  for (std::size_t i = 0; i < zones.size(); ++i) {
    check_camera(zones[i].camera, "zones[" + std::to_string(i) + "]", cameras, problems);
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    check_camera(lines[i].camera, "lines[" + std::to_string(i) + "]", cameras, problems);
  }
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
