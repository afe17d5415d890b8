// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "daemon/core/frame_result.h"
#include "daemon/core/label_tracker.h"

namespace yolo::daemon {

// What yolo-edged publishes over MQTT, in one place: topic names and payloads (docs/live-view.md,
// "MQTT and Home Assistant", describes them for users). The connection and timing live in
// MqttOutput.

// Payloads of the availability and occupancy topics.
inline constexpr std::string_view kOnline = "online";
inline constexpr std::string_view kOffline = "offline";
inline constexpr std::string_view kOccupied = "ON";
inline constexpr std::string_view kVacant = "OFF";

// `text` as one topic level and Home Assistant id: ASCII letters, digits, '-' and '_' kept, any
// other byte '_' ("traffic light" -> "traffic_light"); never empty.
std::string topic_segment(std::string_view text);

// The topics of one daemon under mqtt.prefix.
struct MqttTopics {
  std::string prefix;

  // "online" / "offline", retained; the last will.
  std::string available() const { return prefix + "/available"; }
  // One message per change of what is seen (event_payload).
  std::string events() const { return prefix + "/events"; }
  // The status subset every mqtt.stats_interval_s (stats_payload).
  std::string stats() const { return prefix + "/stats"; }
  // "ON" / "OFF" per label, retained: PREFIX/occupancy/<topic_segment(label)>.
  std::string occupancy(const std::string& label) const;
  // Every occupancy topic (a subscription filter).
  std::string all_occupancy() const { return prefix + "/occupancy/+"; }
  // The label segment of an occupancy topic, or "" when `topic` is not one.
  std::string occupancy_segment(std::string_view topic) const;

  // Tracked objects (tracking.enabled), per camera; every name through topic_segment().
  // One message per event (tracking::to_json), not retained: PREFIX/CAMERA/events/KIND
  // (PREFIX/+/events/# follows them all).
  std::string object_event(std::string_view camera, tracking::ObjectEventKind kind) const;
  // A zone's retained states: PREFIX/CAMERA/zones/ZONE + /occupancy (objects in it now), /entries
  // (entries since its counts started, all classes) and /entries/CLASS.
  std::string zone(std::string_view camera, std::string_view zone) const;
  // A line's retained states: PREFIX/CAMERA/lines/LINE + /in and /out (crossings since its counts
  // started, all classes) and /in/CLASS, /out/CLASS.
  std::string line(std::string_view camera, std::string_view line) const;
};

// A zone or line of a scene: what gets state topics and Home Assistant sensors.
struct ScenePlace {
  std::string camera;
  std::string name;
  bool line = false;

  auto operator<=>(const ScenePlace&) const = default;
};

// The zones and lines of `scene` (none when it is null: tracking off).
std::vector<ScenePlace> scene_places(const SceneState* scene);

// The retained state topics of `scene`'s zones and lines, with their payloads (a whole number as
// text): see MqttTopics::zone and MqttTopics::line.
std::map<std::string, std::string> scene_states(const MqttTopics& topics, const SceneState& scene);

// The PREFIX/events payload for `changes`, with the reported (debounced) `counts` after them.
// `frame` is the frame that made the change: its wall time, index and detections are sent. When
// the change came without a frame (labels expired while the source stalled), `frame` is null:
// the time is `now`, the index `last_index` (the last frame seen) and detections are empty.
nlohmann::json event_payload(const std::vector<LabelChange>& changes,
                             const std::map<std::string, int>& counts, const FrameResult* frame,
                             std::int64_t last_index, std::chrono::system_clock::time_point now);

// The PREFIX/stats payload: a fixed subset of the daemon's status (the same keys and shapes as
// GET /api/status, see kStatsKeys in the .cpp), "cameras" with each camera's name, source state,
// camera fps, detection fps and skipped fps (status_key), and "time", the UTC time it was sent.
nlohmann::json stats_payload(const nlohmann::json& status,
                             std::chrono::system_clock::time_point now);

// What Home Assistant discovery announces, and where.
struct DiscoverySettings {
  // mqtt.discovery_prefix ("homeassistant").
  std::string discovery_prefix;
  MqttTopics topics;
  // The device's host name: its identifier and name.
  std::string host;
  // mqtt.stats_interval_s: the sensors expire after three missed stats.
  double stats_interval_s = 10;
};

// Where Home Assistant announces itself ("online" when it starts).
std::string home_assistant_status_topic(const DiscoverySettings& settings);

// Every discovery config, by topic, each available while PREFIX/available says online; published
// retained. The daemon's device (identifier NODE, topic_segment(host + "_" + prefix)) has an
// occupancy binary_sensor per label and sensors for FPS, inference latency, temperature and power
// read from the stats topic. Each of `cameras` is a device of its own (identifier NODE_CAMERA,
// via_device NODE: Home Assistant shows it under the daemon's) with sensors of its camera,
// detection and skipped fps and its source's state read from the stats' cameras, and per place
// of `places` on it a sensor of the zone's occupancy (measurement) or one per direction of the
// line's crossings (total_increasing).
std::map<std::string, nlohmann::json> discovery_configs(
    const DiscoverySettings& settings, const std::set<std::string>& labels,
    const std::vector<std::string>& cameras = {}, const std::vector<ScenePlace>& places = {});

}  // namespace yolo::daemon
