// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/mqtt/mqtt_messages.h"

#include <cmath>

#include "daemon/base/version.h"
#include "text/format.h"
#include "text/time_format.h"
#include "vision/detection_json.h"

namespace yolo::daemon {

namespace {

using nlohmann::json;

// The status keys PREFIX/stats carries: what a dashboard or an automation watches, each at the
// place /api/status has it. The rest of the status (every output's state, every thermal zone,
// the thread decision's measurements) is for the live view and stays off the broker.
constexpr const char* kStatsKeys[] = {
    "/version",        "/host",
    "/state",          "/uptime_s",
    "/model/name",     "/model/precision",
    "/source/state",   "/fps",
    "/frames",         "/latency_ms",
    "/threads/count",  "/temperature_c",
    "/device/power_w", "/device/throttle",
    "/last_error",
};

// Home Assistant: the device every entity belongs to, and the availability they share.
json device(const DiscoverySettings& s, const std::string& node) {
  return {{"identifiers", json::array({node})},
          {"name", "yolo-edge " + s.host},
          {"model", "yolo-edge"},
          {"manufacturer", "yolo-edge"},
          {"sw_version", std::string(version())}};
}

json entity(const DiscoverySettings& s, const std::string& node, const std::string& name,
            const std::string& id) {
  return {{"name", name},
          {"unique_id", node + "_" + id},
          {"availability_topic", s.topics.available()},
          {"payload_available", kOnline},
          {"payload_not_available", kOffline},
          {"device", device(s, node)},
          {"origin", {{"name", "yolo-edge"}, {"sw_version", std::string(version())}}}};
}

// A sensor read from PREFIX/stats; `value` is a Jinja expression on value_json, `guard` the
// condition under which it exists (an absent value reads as unknown instead of a template error).
json stats_sensor(const DiscoverySettings& s, const std::string& node, const std::string& name,
                  const std::string& id, const std::string& value, const std::string& guard) {
  json j = entity(s, node, name, id);
  j["state_topic"] = s.topics.stats();
  j["value_template"] = "{{ " + value + " if " + guard + " else none }}";
  j["state_class"] = "measurement";
  j["expire_after"] = static_cast<int>(std::ceil(3 * s.stats_interval_s));
  return j;
}

}  // namespace

std::string topic_segment(std::string_view text) {
  std::string segment;
  for (const char c : text) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '-' || c == '_';
    segment += plain ? c : '_';
  }
  return segment.empty() ? "_" : segment;
}

std::string MqttTopics::occupancy(const std::string& label) const {
  return prefix + "/occupancy/" + topic_segment(label);
}

std::string MqttTopics::occupancy_segment(std::string_view topic) const {
  const std::string start = prefix + "/occupancy/";
  if (!topic.starts_with(start)) return "";
  const std::string_view rest = topic.substr(start.size());
  return rest.find('/') == std::string_view::npos ? std::string(rest) : "";
}

std::string MqttTopics::object_event(std::string_view camera,
                                     tracking::ObjectEventKind kind) const {
  return prefix + "/" + topic_segment(camera) + "/events/" +
         std::string(tracking::event_kind_name(kind));
}

std::string MqttTopics::zone(std::string_view camera, std::string_view zone) const {
  return prefix + "/" + topic_segment(camera) + "/zones/" + topic_segment(zone);
}

std::string MqttTopics::line(std::string_view camera, std::string_view line) const {
  return prefix + "/" + topic_segment(camera) + "/lines/" + topic_segment(line);
}

std::vector<ScenePlace> scene_places(const SceneState* scene) {
  std::vector<ScenePlace> places;
  if (!scene) return places;
  for (const auto& z : scene->zones) places.push_back({scene->camera, z.name, false});
  for (const auto& l : scene->lines) places.push_back({scene->camera, l.name, true});
  return places;
}

std::map<std::string, std::string> scene_states(const MqttTopics& topics, const SceneState& scene) {
  std::map<std::string, std::string> states;
  const auto counts_of = [&](const std::string& name, bool line) -> const tracking::PlaceCounts* {
    for (const auto& p : scene.counts.places) {
      if (p.name == name && p.line == line) return &p;
    }
    return nullptr;
  };
  for (const auto& z : scene.zones) {
    const std::string base = topics.zone(scene.camera, z.name);
    const auto inside = scene.occupancy.find(z.name);
    states[base + "/occupancy"] =
        std::to_string(inside != scene.occupancy.end() ? inside->second : 0);
    std::int64_t entries = 0;
    if (const tracking::PlaceCounts* counts = counts_of(z.name, false)) {
      for (const auto& [label, tally] : counts->total) {
        states[base + "/entries/" + topic_segment(label)] = std::to_string(tally.in);
        entries += tally.in;
      }
    }
    states[base + "/entries"] = std::to_string(entries);
  }
  for (const auto& l : scene.lines) {
    const std::string base = topics.line(scene.camera, l.name);
    tracking::Tally all;
    if (const tracking::PlaceCounts* counts = counts_of(l.name, true)) {
      for (const auto& [label, tally] : counts->total) {
        states[base + "/in/" + topic_segment(label)] = std::to_string(tally.in);
        states[base + "/out/" + topic_segment(label)] = std::to_string(tally.out);
        all.in += tally.in;
        all.out += tally.out;
      }
    }
    states[base + "/in"] = std::to_string(all.in);
    states[base + "/out"] = std::to_string(all.out);
  }
  return states;
}

json event_payload(const std::vector<LabelChange>& changes,
                   const std::map<std::string, int>& counts, const FrameResult* frame,
                   std::int64_t last_index, std::chrono::system_clock::time_point now) {
  json changed = json::array();
  for (const auto& c : changes) {
    changed.push_back({{"label", c.label}, {"from", c.from}, {"to", c.to}});
  }
  json labels = json::array();
  json counted = json::object();
  for (const auto& [label, count] : counts) {
    labels.push_back(label);
    counted[label] = count;
  }
  json detections = json::array();
  if (frame) {
    for (const auto& d : frame->detections) {
      detections.push_back(vision::detection_json(d, label_of(*frame, d.class_id)));
    }
  }
  return {{"time", text::iso8601_utc(frame ? frame->wall : now)},
          {"frame", frame ? frame->index : last_index},
          {"changes", std::move(changed)},
          {"labels", std::move(labels)},
          {"counts", std::move(counted)},
          {"detections", std::move(detections)}};
}

json stats_payload(const json& status, std::chrono::system_clock::time_point now) {
  json stats = json::object();
  stats["time"] = text::iso8601_utc(now);
  for (const char* key : kStatsKeys) {
    const json::json_pointer pointer(key);
    if (status.contains(pointer)) stats[pointer] = status[pointer];
  }
  return stats;
}

std::string home_assistant_status_topic(const DiscoverySettings& settings) {
  return settings.discovery_prefix + "/status";
}

std::map<std::string, json> discovery_configs(const DiscoverySettings& s,
                                              const std::set<std::string>& labels,
                                              const std::vector<ScenePlace>& places) {
  const std::string node = topic_segment(s.host + "_" + s.topics.prefix);
  const auto topic = [&](const std::string& component, const std::string& id) {
    return s.discovery_prefix + "/" + component + "/" + node + "/" + id + "/config";
  };
  std::map<std::string, json> configs;

  json fps = stats_sensor(s, node, "FPS", "fps", "value_json.fps", "value_json.fps is defined");
  fps["unit_of_measurement"] = "fps";
  fps["icon"] = "mdi:speedometer";
  fps["suggested_display_precision"] = 1;
  configs[topic("sensor", "fps")] = std::move(fps);

  json latency =
      stats_sensor(s, node, "Inference latency", "inference_latency",
                   "value_json.latency_ms.inference.p50", "value_json.latency_ms is defined");
  latency["device_class"] = "duration";
  latency["unit_of_measurement"] = "ms";
  latency["suggested_display_precision"] = 1;
  configs[topic("sensor", "inference_latency")] = std::move(latency);

  json temperature = stats_sensor(s, node, "Temperature", "temperature", "value_json.temperature_c",
                                  "value_json.temperature_c is defined");
  temperature["device_class"] = "temperature";
  temperature["unit_of_measurement"] = "°C";
  temperature["suggested_display_precision"] = 1;
  configs[topic("sensor", "temperature")] = std::move(temperature);

  json power =
      stats_sensor(s, node, "Power", "power", "value_json.device.power_w",
                   "value_json.device is defined and value_json.device.power_w is defined");
  power["device_class"] = "power";
  power["unit_of_measurement"] = "W";
  power["suggested_display_precision"] = 2;
  configs[topic("sensor", "power")] = std::move(power);

  for (const auto& label : labels) {
    const std::string id = topic_segment(label);
    json occupancy = entity(s, node, label, id + "_occupancy");
    occupancy["device_class"] = "occupancy";
    occupancy["state_topic"] = s.topics.occupancy(label);
    occupancy["payload_on"] = kOccupied;
    occupancy["payload_off"] = kVacant;
    configs[topic("binary_sensor", id)] = std::move(occupancy);
  }

  // The camera and the place in every id, so that a second camera's zone of the same name is
  // another sensor and a dashboard's history survives more cameras.
  for (const ScenePlace& place : places) {
    const std::string title = place.camera + " " + place.name;
    if (!place.line) {
      const std::string id = topic_segment(place.camera + "_zone_" + place.name + "_occupancy");
      json occupancy = entity(s, node, title + " occupancy", id);
      occupancy["state_topic"] = s.topics.zone(place.camera, place.name) + "/occupancy";
      occupancy["state_class"] = "measurement";
      occupancy["unit_of_measurement"] = "objects";
      occupancy["icon"] = "mdi:account-group";
      configs[topic("sensor", id)] = std::move(occupancy);
      continue;
    }
    for (const auto direction : {tracking::Direction::kIn, tracking::Direction::kOut}) {
      const std::string way(tracking::direction_name(direction));
      const std::string id = topic_segment(place.camera + "_line_" + place.name + "_" + way);
      json count = entity(s, node, title + " " + way, id);
      count["state_topic"] = s.topics.line(place.camera, place.name) + "/" + way;
      count["state_class"] = "total_increasing";
      count["unit_of_measurement"] = "objects";
      count["icon"] =
          direction == tracking::Direction::kIn ? "mdi:arrow-right-bold" : "mdi:arrow-left-bold";
      configs[topic("sensor", id)] = std::move(count);
    }
  }
  return configs;
}

}  // namespace yolo::daemon
