// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/http/http_json.h"

#include <algorithm>
#include <string>
#include <vector>

#include "daemon/core/event_media.h"
#include "text/time_format.h"

namespace yolo::daemon::http {

namespace {

bool listed(const std::vector<tracking::ObjectEventKind>& kinds, tracking::ObjectEventKind kind) {
  return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

}  // namespace

nlohmann::json event_json(const tracking::ObjectEvent& e, const std::filesystem::path& state_dir,
                          const config::EventsConfig* expected) {
  nlohmann::json j = tracking::to_json(e);
  const std::string base = "/api/events/" + std::to_string(e.id) + "/";
  const EventMedia media = state_dir.empty() ? EventMedia{} : event_media(state_dir, e.id);
  const auto link = [&](const char* key, const std::filesystem::path& file, bool made,
                        const char* name) {
    std::error_code ignored;
    const bool there = !file.empty() && std::filesystem::is_regular_file(file, ignored);
    j[key] = there || (made && !state_dir.empty()) ? nlohmann::json(base + name) : nullptr;
  };
  const bool snapshot = expected && listed(expected->snapshots, e.kind);
  link("snapshot", media.snapshot, snapshot, "snapshot.jpg");
  link("crop", media.crop, snapshot && expected->crop, "crop.jpg");
  link("clip", media.clip, expected && listed(expected->clips, e.kind), "clip.avi");
  return j;
}

nlohmann::json counts_json(const SceneState& scene, bool hours) {
  const auto tallies = [](const std::map<std::string, tracking::Tally>& by_class) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [label, t] : by_class) j[label] = {{"in", t.in}, {"out", t.out}};
    return j;
  };
  const auto place = [&](const std::string& name, bool line) {
    nlohmann::json j = {{"name", name}, {"kind", line ? "line" : "zone"}};
    const auto it = std::find_if(scene.counts.places.begin(), scene.counts.places.end(),
                                 [&](const auto& p) { return p.name == name && p.line == line; });
    tracking::Tally all;
    if (it != scene.counts.places.end()) {
      for (const auto& [label, t] : it->total) {
        all.in += t.in;
        all.out += t.out;
      }
      j["since"] = text::iso8601_utc(it->since);
      j["total"] = tallies(it->total);
      if (hours) {
        nlohmann::json by_hour = nlohmann::json::object();
        for (const auto& [hour, t] : it->hours) by_hour[hour] = tallies(t);
        j["hours"] = std::move(by_hour);
      }
    } else {
      j["total"] = nlohmann::json::object();
      if (hours) j["hours"] = nlohmann::json::object();
    }
    j["all"] = {{"in", all.in}, {"out", all.out}};
    if (!line) {
      const auto o = scene.occupancy.find(name);
      j["occupancy"] = o == scene.occupancy.end() ? 0 : o->second;
    }
    return j;
  };
  nlohmann::json places = nlohmann::json::array();
  for (const auto& z : scene.zones) places.push_back(place(z.name, false));
  for (const auto& l : scene.lines) places.push_back(place(l.name, true));
  return {{"camera", scene.camera}, {"version", scene.version}, {"places", std::move(places)}};
}

}  // namespace yolo::daemon::http
