// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/mqtt/mqtt_messages.h"

#include <cmath>

#include "daemon/base/version.h"
#include "daemon/core/daemon_status.h"
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

// Home Assistant: the daemon's device, which the daemon-wide entities belong to.
json daemon_device(const std::string& node, const DiscoverySettings& s) {
  return {{"identifiers", json::array({node})},
          {"name", "yolo-edge " + s.host},
          {"model", "yolo-edge"},
          {"manufacturer", "yolo-edge"},
          {"sw_version", std::string(version())}};
}

// A camera's device, which its own entities belong to; under the daemon's (via_device), as Home
// Assistant shows the devices a hub serves.
json camera_device(const std::string& node, const DiscoverySettings& s, const std::string& camera) {
  return {{"identifiers", json::array({node + "_" + topic_segment(camera)})},
          {"name", s.host + " " + camera},
          {"model", "yolo-edge camera"},
          {"manufacturer", "yolo-edge"},
          {"sw_version", std::string(version())},
          {"via_device", node}};
}

// An entity of `device`; every entity shares the daemon's availability.
json entity(const DiscoverySettings& s, const std::string& node, json device,
            const std::string& name, const std::string& id) {
  return {{"name", name},
          {"unique_id", node + "_" + id},
          {"availability_topic", s.topics.available()},
          {"payload_available", kOnline},
          {"payload_not_available", kOffline},
          {"device", std::move(device)},
          {"origin", {{"name", "yolo-edge"}, {"sw_version", std::string(version())}}}};
}

// A sensor read from the stats turns unknown after three stats missed.
int expire_after(const DiscoverySettings& s) {
  return static_cast<int>(std::ceil(3 * s.stats_interval_s));
}

// A sensor of the daemon's device read from PREFIX/stats; `value` is a Jinja expression on
// value_json, `guard` the condition under which it exists (an absent value reads as unknown
// instead of a template error).
json stats_sensor(const DiscoverySettings& s, const std::string& node, const std::string& name,
                  const std::string& id, const std::string& value, const std::string& guard) {
  json j = entity(s, node, daemon_device(node, s), name, id);
  j["state_topic"] = s.topics.stats();
  j["value_template"] = "{{ " + value + " if " + guard + " else none }}";
  j["state_class"] = "measurement";
  j["expire_after"] = expire_after(s);
  return j;
}

// A sensor of `camera`'s device read from its entry in the stats' cameras; `field` is a Jinja
// path in that entry. The camera absent (stats of an older daemon, or before the reload that
// added it took) reads as unknown.
json camera_sensor(const DiscoverySettings& s, const std::string& node, const std::string& camera,
                   const std::string& name, const std::string& id, const std::string& field) {
  namespace key = status_key;
  json j = entity(s, node, camera_device(node, s, camera), name, id);
  j["state_topic"] = s.topics.stats();
  j["value_template"] = std::string("{% set c = value_json.") + key::kCameras +
                        " | default([]) | selectattr('" + key::kName + "', 'equalto', " +
                        json(camera).dump() + ") | list %}{{ c[0]." + field + " if c else none }}";
  j["expire_after"] = expire_after(s);
  return j;
}

// A camera's entry in PREFIX/stats: what its Home Assistant device shows, at the places its status
// has it.
json camera_stats(const json& camera) {
  namespace key = status_key;
  json stats = json::object();
  for (const char* k : {key::kName, key::kCameraFps, key::kDetectionFps, key::kSkippedFps}) {
    if (camera.contains(k)) stats[k] = camera[k];
  }
  if (camera.contains(key::kSource) && camera[key::kSource].contains(key::kState)) {
    stats[key::kSource][key::kState] = camera[key::kSource][key::kState];
  }
  return stats;
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
  if (const auto cameras = status.find(status_key::kCameras);
      cameras != status.end() && cameras->is_array()) {
    json picked = json::array();
    for (const json& camera : *cameras) picked.push_back(camera_stats(camera));
    stats[status_key::kCameras] = std::move(picked);
  }
  return stats;
}

std::string home_assistant_status_topic(const DiscoverySettings& settings) {
  return settings.discovery_prefix + "/status";
}

std::map<std::string, json> discovery_configs(const DiscoverySettings& s,
                                              const std::set<std::string>& labels,
                                              const std::vector<std::string>& cameras,
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
    json occupancy = entity(s, node, daemon_device(node, s), label, id + "_occupancy");
    occupancy["device_class"] = "occupancy";
    occupancy["state_topic"] = s.topics.occupancy(label);
    occupancy["payload_on"] = kOccupied;
    occupancy["payload_off"] = kVacant;
    configs[topic("binary_sensor", id)] = std::move(occupancy);
  }

  // Each camera's device: how it is served and whether its source streams, from the stats.
  for (const std::string& camera : cameras) {
    namespace key = status_key;
    const auto fps = [&](const std::string& name, const char* field, const char* icon) {
      const std::string id = topic_segment(camera + "_" + field);
      json sensor = camera_sensor(s, node, camera, name, id, field);
      sensor["state_class"] = "measurement";
      sensor["unit_of_measurement"] = "fps";
      sensor["suggested_display_precision"] = 1;
      sensor["entity_category"] = "diagnostic";
      sensor["icon"] = icon;
      configs[topic("sensor", id)] = std::move(sensor);
    };
    fps("Camera FPS", key::kCameraFps, "mdi:camera");
    fps("Detection FPS", key::kDetectionFps, "mdi:speedometer");
    fps("Skipped FPS", key::kSkippedFps, "mdi:debug-step-over");

    const std::string id = topic_segment(camera + "_source");
    json source =
        camera_sensor(s, node, camera, "Source", id, std::string(key::kSource) + "." + key::kState);
    source["device_class"] = "enum";
    json options = json::array();
    for (const SourceState state : {SourceState::kOpening, SourceState::kStreaming,
                                    SourceState::kLost, SourceState::kStopped}) {
      options.push_back(state_name(state));
    }
    source["options"] = std::move(options);
    source["icon"] = "mdi:cctv";
    configs[topic("sensor", id)] = std::move(source);
  }

  // The camera in every id, so that a second camera's zone of the same name is another sensor.
  // The ids are those the sensors had on the daemon's device before cameras had their own: a
  // dashboard's history follows them to the camera's.
  for (const ScenePlace& place : places) {
    const json device = camera_device(node, s, place.camera);
    if (!place.line) {
      const std::string id = topic_segment(place.camera + "_zone_" + place.name + "_occupancy");
      json occupancy = entity(s, node, device, place.name + " occupancy", id);
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
      json count = entity(s, node, device, place.name + " " + way, id);
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
