// SPDX-License-Identifier: Apache-2.0
// The MQTT topics and payloads (daemon/outputs/mqtt/mqtt_messages.cpp): what a subscriber and Home
// Assistant read.
#include "daemon/outputs/mqtt/mqtt_messages.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <set>
#include <string>

#include "config/config.h"
#include "daemon/base/version.h"
#include "daemon/core/daemon_status.h"
#include "tests/daemon/frame_parts.h"

namespace yolo::daemon {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

std::shared_ptr<const ModelInfo> coco_model() {
  return test::model_info("yolo11n_320_fp32", {"person", "bicycle", "traffic light"});
}

TEST(MqttMessages, TopicSegmentsKeepPlainCharactersOnly) {
  EXPECT_EQ(topic_segment("person"), "person");
  EXPECT_EQ(topic_segment("traffic light"), "traffic_light");
  EXPECT_EQ(topic_segment("a/b+#c"), "a_b__c");
  EXPECT_EQ(topic_segment("pi5.local_yolo-edge"), "pi5_local_yolo-edge");
  EXPECT_EQ(topic_segment(""), "_");
  const MqttTopics topics{"home/cam"};
  EXPECT_EQ(topics.available(), "home/cam/available");
  EXPECT_EQ(topics.events(), "home/cam/events");
  EXPECT_EQ(topics.stats(), "home/cam/stats");
  EXPECT_EQ(topics.occupancy("traffic light"), "home/cam/occupancy/traffic_light");
  EXPECT_EQ(topics.all_occupancy(), "home/cam/occupancy/+");
  EXPECT_EQ(topics.occupancy_segment("home/cam/occupancy/traffic_light"), "traffic_light");
  EXPECT_EQ(topics.occupancy_segment("home/cam/occupancy/a/b"), "");
  EXPECT_EQ(topics.occupancy_segment("home/other/occupancy/person"), "");
}

TEST(MqttMessages, AnEventCarriesTheChangeTheCountsAndTheFramesDetections) {
  FrameResult frame;
  frame.index = 1234;
  frame.wall = std::chrono::system_clock::time_point(1'700'000'000'123ms);
  frame.model = coco_model();
  frame.detections = {{0, 0.87123f, {10.04f, 20.0f, 110.55f, 220.0f}},
                      {2, 0.5f, {1, 2, 3, 4}},
                      {0, 0.6f, {5, 6, 7, 8}}};
  EXPECT_EQ(label_counts(frame), (std::map<std::string, int>{{"person", 2}, {"traffic light", 1}}));
  const json event = event_payload({{"person", 1, 2}}, {{"person", 2}, {"traffic light", 1}},
                                   &frame, 99, std::chrono::system_clock::now());
  EXPECT_EQ(event["time"], "2023-11-14T22:13:20.123Z");
  EXPECT_EQ(event["frame"], 1234);
  EXPECT_EQ(event["changes"], json::parse(R"([{"label":"person","from":1,"to":2}])"));
  EXPECT_EQ(event["labels"], json::parse(R"(["person","traffic light"])"));
  EXPECT_EQ(event["counts"], json::parse(R"({"person":2,"traffic light":1})"));
  ASSERT_EQ(event["detections"].size(), 3u);
  EXPECT_EQ(event["detections"][0],
            json::parse(
                R"({"class_id":0,"label":"person","score":0.871,"box":[10.0,20.0,110.6,220.0]})"));
  EXPECT_EQ(event["detections"][1]["label"], "traffic light");
}

TEST(MqttMessages, AnEventWithoutAFrameIsStampedNowWithTheLastIndex) {
  const auto now = std::chrono::system_clock::time_point(1'700'000'000'000ms);
  const json event = event_payload({{"person", 1, 0}}, {}, nullptr, 41, now);
  EXPECT_EQ(event["time"], "2023-11-14T22:13:20.000Z");
  EXPECT_EQ(event["frame"], 41);
  EXPECT_EQ(event["labels"], json::array());
  EXPECT_EQ(event["counts"], json::object());
  EXPECT_EQ(event["detections"], json::array());
}

TEST(MqttMessages, StatsAreTheStatusSubsetAtTheStatusPlaces) {
  const json status = json::parse(R"({
    "version": "0.1.0", "state": "running", "host": "pi5", "config": "/etc/x.yaml",
    "uptime_s": 12, "status_line": "long text",
    "model": {"name": "yolo11n", "precision": "int8", "file": "/m.onnx", "input": [320, 320]},
    "source": {"state": "streaming", "uri": "/dev/video0", "frames": 100},
    "fps": 24.8, "frames": 300,
    "latency_ms": {"inference": {"p50": 30.5, "p90": 40.1}},
    "threads": {"count": 2, "mode": "adaptive", "last_decision": {"why": "x"}},
    "device": {"power_w": 3.2, "rss_bytes": 1000, "temp_c": {"cpu": 50}},
    "temperature_c": 50.5,
    "outputs": {"mqtt": {"ok": true}},
    "cameras": [
      {"name": "door", "detect_fps": 5, "camera_fps": 30.02, "detection_fps": 4.98,
       "skipped_fps": 0.5, "detected": 100, "skipped": 3,
       "source": {"state": "streaming", "uri": "rtsp://user:secret@cam/1", "frames": 900}},
      {"name": "yard", "detect_fps": 0, "camera_fps": 0, "detection_fps": 0, "skipped_fps": 0,
       "detected": 0, "skipped": 0, "source": {"state": "lost", "uri": "/dev/video2"}}
    ]
  })");
  const json stats = stats_payload(status, std::chrono::system_clock::time_point(1'700'000'000s));
  EXPECT_EQ(stats, json::parse(R"({
    "time": "2023-11-14T22:13:20.000Z",
    "version": "0.1.0", "state": "running", "host": "pi5", "uptime_s": 12,
    "model": {"name": "yolo11n", "precision": "int8"},
    "source": {"state": "streaming"},
    "fps": 24.8, "frames": 300,
    "latency_ms": {"inference": {"p50": 30.5, "p90": 40.1}},
    "threads": {"count": 2},
    "device": {"power_w": 3.2},
    "temperature_c": 50.5,
    "cameras": [
      {"name": "door", "camera_fps": 30.02, "detection_fps": 4.98, "skipped_fps": 0.5,
       "source": {"state": "streaming"}},
      {"name": "yard", "camera_fps": 0, "detection_fps": 0, "skipped_fps": 0,
       "source": {"state": "lost"}}
    ]
  })"))
      << stats.dump(2);
}

TEST(MqttMessages, StatsCarryEachCameraAsTheStatusNamesIt) {
  DaemonStatus status;
  CameraStatus door;
  door.name = "door";
  door.source.state = SourceState::kLost;
  door.camera_fps = 10.004;
  door.detection_fps = 5;
  door.skipped_fps = 1.25;
  status.cameras = {door};
  const json stats = stats_payload(to_json(status), std::chrono::system_clock::now());
  EXPECT_EQ(stats["cameras"], json::parse(R"([{"name": "door", "camera_fps": 10.0,
      "detection_fps": 5.0, "skipped_fps": 1.25, "source": {"state": "lost"}}])"))
      << stats.dump(2);
}

TEST(MqttMessages, DiscoveryAnnouncesOneDeviceWithSensorsAndAnOccupancyPerLabel) {
  const DiscoverySettings settings{"homeassistant", MqttTopics{"yolo-edge"}, "pi5.local", 10};
  EXPECT_EQ(home_assistant_status_topic(settings), "homeassistant/status");
  const auto configs = discovery_configs(settings, {"person", "traffic light"});
  const std::string node = "pi5_local_yolo-edge";
  std::vector<std::string> topics;
  for (const auto& [topic, config] : configs) topics.push_back(topic);
  EXPECT_EQ(topics, (std::vector<std::string>{
                        "homeassistant/binary_sensor/" + node + "/person/config",
                        "homeassistant/binary_sensor/" + node + "/traffic_light/config",
                        "homeassistant/sensor/" + node + "/fps/config",
                        "homeassistant/sensor/" + node + "/inference_latency/config",
                        "homeassistant/sensor/" + node + "/power/config",
                        "homeassistant/sensor/" + node + "/temperature/config",
                    }));
  for (const auto& [topic, config] : configs) {
    EXPECT_EQ(config["device"]["identifiers"], json::array({node})) << topic;
    EXPECT_EQ(config["device"]["name"], "yolo-edge pi5.local");
    EXPECT_EQ(config["device"]["sw_version"], std::string(version()));
    EXPECT_EQ(config["availability_topic"], "yolo-edge/available");
    EXPECT_EQ(config["payload_available"], "online");
    EXPECT_EQ(config["payload_not_available"], "offline");
    EXPECT_TRUE(config["unique_id"].get<std::string>().starts_with(node + "_")) << topic;
  }
  const json& light = configs.at("homeassistant/binary_sensor/" + node + "/traffic_light/config");
  EXPECT_EQ(light["name"], "traffic light");
  EXPECT_EQ(light["device_class"], "occupancy");
  EXPECT_EQ(light["state_topic"], "yolo-edge/occupancy/traffic_light");
  EXPECT_EQ(light["payload_on"], "ON");
  EXPECT_EQ(light["payload_off"], "OFF");
  const json& power = configs.at("homeassistant/sensor/" + node + "/power/config");
  EXPECT_EQ(power["state_topic"], "yolo-edge/stats");
  EXPECT_EQ(power["device_class"], "power");
  EXPECT_EQ(power["unit_of_measurement"], "W");
  EXPECT_EQ(power["expire_after"], 30);
  EXPECT_EQ(power["value_template"],
            "{{ value_json.device.power_w if value_json.device is defined and "
            "value_json.device.power_w is defined else none }}");
  const json& latency = configs.at("homeassistant/sensor/" + node + "/inference_latency/config");
  EXPECT_EQ(latency["unit_of_measurement"], "ms");
  EXPECT_EQ(latency["value_template"],
            "{{ value_json.latency_ms.inference.p50 if value_json.latency_ms is defined else "
            "none }}");
  EXPECT_EQ(configs.at("homeassistant/sensor/" + node + "/temperature/config")["device_class"],
            "temperature");
}

// The camera "main" with the zone "front door" (2 people inside, 5 people and a dog entered) and
// the line "road" (cars 7 in, 3 out; a bicycle 1 out).
SceneState test_scene() {
  SceneState scene;
  scene.camera = "main";
  test::add_zone(scene, "front door", {{"person", {5, 3}}, {"dog", {1, 1}}}, 2);
  test::add_line(scene, "road", {{"car", {7, 3}}, {"bicycle", {0, 1}}});
  return scene;
}

TEST(MqttMessages, ObjectEventsAndPlacesHaveTopicsPerCamera) {
  const MqttTopics topics{"home/cam"};
  EXPECT_EQ(topics.object_event("main", tracking::ObjectEventKind::kCross),
            "home/cam/main/events/cross");
  EXPECT_EQ(topics.object_event("back yard", tracking::ObjectEventKind::kLoiter),
            "home/cam/back_yard/events/loiter");
  EXPECT_EQ(topics.zone("main", "front door"), "home/cam/main/zones/front_door");
  EXPECT_EQ(topics.line("main", "road/north"), "home/cam/main/lines/road_north");
}

TEST(MqttMessages, ZonesAndLinesHaveRetainedStatesInAllAndPerClass) {
  const auto states = scene_states(MqttTopics{"y"}, test_scene());
  EXPECT_EQ(states, (std::map<std::string, std::string>{
                        {"y/main/zones/front_door/occupancy", "2"},
                        {"y/main/zones/front_door/entries", std::to_string(5 + 1)},
                        {"y/main/zones/front_door/entries/person", "5"},
                        {"y/main/zones/front_door/entries/dog", "1"},
                        {"y/main/lines/road/in", std::to_string(7 + 0)},
                        {"y/main/lines/road/out", std::to_string(3 + 1)},
                        {"y/main/lines/road/in/car", "7"},
                        {"y/main/lines/road/out/car", "3"},
                        {"y/main/lines/road/in/bicycle", "0"},
                        {"y/main/lines/road/out/bicycle", "1"},
                    }));
  // A place that has counted nothing yet still has its totals, at 0.
  SceneState fresh = test_scene();
  fresh.counts.places.clear();
  fresh.occupancy.clear();
  const auto zeros = scene_states(MqttTopics{"y"}, fresh);
  EXPECT_EQ(zeros, (std::map<std::string, std::string>{{"y/main/zones/front_door/occupancy", "0"},
                                                       {"y/main/zones/front_door/entries", "0"},
                                                       {"y/main/lines/road/in", "0"},
                                                       {"y/main/lines/road/out", "0"}}));
}

TEST(MqttMessages, DiscoveryHasAnOccupancySensorPerZoneAndACountPerLineDirection) {
  const DiscoverySettings settings{"homeassistant", MqttTopics{"yolo-edge"}, "pi5.local", 10};
  const SceneState scene = test_scene();
  const auto places = scene_places(&scene);
  ASSERT_EQ(places.size(), 2u);
  EXPECT_TRUE(scene_places(nullptr).empty());
  const auto configs = discovery_configs(settings, {}, {"main"}, places);
  const std::string node = "pi5_local_yolo-edge";
  const json& door =
      configs.at("homeassistant/sensor/" + node + "/main_zone_front_door_occupancy/config");
  // The id it had before cameras had devices; on the camera's device, whose name leads.
  EXPECT_EQ(door["unique_id"], node + "_main_zone_front_door_occupancy");
  EXPECT_EQ(door["name"], "front door occupancy");
  EXPECT_EQ(door["state_topic"], "yolo-edge/main/zones/front_door/occupancy");
  EXPECT_EQ(door["state_class"], "measurement");
  EXPECT_EQ(door["device"]["identifiers"], json::array({node + "_main"}));
  EXPECT_EQ(door["device"]["name"], "pi5.local main");
  EXPECT_EQ(door["availability_topic"], "yolo-edge/available");
  for (const std::string way : {"in", "out"}) {
    const json& road =
        configs.at("homeassistant/sensor/" + node + "/main_line_road_" + way + "/config");
    EXPECT_EQ(road["unique_id"], node + "_main_line_road_" + way);
    EXPECT_EQ(road["state_topic"], "yolo-edge/main/lines/road/" + way);
    EXPECT_EQ(road["state_class"], "total_increasing");
  }
  // The camera's own sensors, and the three of the scene.
  EXPECT_EQ(configs.size(), discovery_configs(settings, {}, {"main"}).size() + 3);
}

// Every config topic of `configs` whose device is `identifier`.
std::set<std::string> on_device(const std::map<std::string, json>& configs,
                                const std::string& identifier) {
  std::set<std::string> topics;
  for (const auto& [topic, config] : configs) {
    if (config["device"]["identifiers"] == json::array({identifier})) topics.insert(topic);
  }
  return topics;
}

TEST(MqttMessages, EachCameraIsADeviceUnderTheDaemonsWithItsOwnSensors) {
  const DiscoverySettings settings{"homeassistant", MqttTopics{"yolo-edge"}, "pi5", 10};
  SceneState door = test_scene();
  door.camera = "door";
  SceneState yard;
  yard.camera = "yard";
  test::add_zone(yard, "lawn", {}, 0);
  std::vector<ScenePlace> places = scene_places(&door);
  for (ScenePlace& p : scene_places(&yard)) places.push_back(std::move(p));
  const auto configs = discovery_configs(settings, {"person"}, {"door", "yard"}, places);
  const std::string node = "pi5_yolo-edge";
  const std::string sensor = "homeassistant/sensor/" + node + "/";

  // The daemon-wide entities stay on the daemon's device.
  EXPECT_EQ(on_device(configs, node),
            (std::set<std::string>{"homeassistant/binary_sensor/" + node + "/person/config",
                                   sensor + "fps/config", sensor + "inference_latency/config",
                                   sensor + "power/config", sensor + "temperature/config"}));
  // Each camera's on its own.
  EXPECT_EQ(on_device(configs, node + "_door"),
            (std::set<std::string>{
                sensor + "door_camera_fps/config", sensor + "door_detection_fps/config",
                sensor + "door_skipped_fps/config", sensor + "door_source/config",
                sensor + "door_zone_front_door_occupancy/config",
                sensor + "door_line_road_in/config", sensor + "door_line_road_out/config"}));
  EXPECT_EQ(on_device(configs, node + "_yard"),
            (std::set<std::string>{
                sensor + "yard_camera_fps/config", sensor + "yard_detection_fps/config",
                sensor + "yard_skipped_fps/config", sensor + "yard_source/config",
                sensor + "yard_zone_lawn_occupancy/config"}));
  EXPECT_EQ(configs.size(), 5u + 7u + 5u);

  const json& yard_fps = configs.at(sensor + "yard_detection_fps/config");
  EXPECT_EQ(yard_fps["device"]["name"], "pi5 yard");
  EXPECT_EQ(yard_fps["device"]["via_device"], node);
  EXPECT_EQ(yard_fps["device"]["sw_version"], std::string(version()));
  EXPECT_EQ(yard_fps["unique_id"], node + "_yard_detection_fps");
  EXPECT_EQ(yard_fps["name"], "Detection FPS");
  EXPECT_EQ(yard_fps["state_topic"], "yolo-edge/stats");
  EXPECT_EQ(yard_fps["availability_topic"], "yolo-edge/available");
  EXPECT_EQ(yard_fps["unit_of_measurement"], "fps");
  EXPECT_EQ(yard_fps["state_class"], "measurement");
  EXPECT_EQ(yard_fps["expire_after"], 30);
  // The camera's entry of the stats' cameras, found by name; unknown while it is not there.
  EXPECT_EQ(yard_fps["value_template"],
            "{% set c = value_json.cameras | default([]) | selectattr('name', 'equalto', "
            "\"yard\") | list %}{{ c[0].detection_fps if c else none }}");
  const json& source = configs.at(sensor + "door_source/config");
  EXPECT_EQ(source["name"], "Source");
  EXPECT_EQ(source["device_class"], "enum");
  EXPECT_EQ(source["options"], json::parse(R"(["opening", "streaming", "lost", "stopped"])"));
  EXPECT_FALSE(source.contains("state_class"));
  EXPECT_EQ(source["value_template"],
            "{% set c = value_json.cameras | default([]) | selectattr('name', 'equalto', "
            "\"door\") | list %}{{ c[0].source.state if c else none }}");
  const json& lawn = configs.at(sensor + "yard_zone_lawn_occupancy/config");
  EXPECT_EQ(lawn["state_topic"], "yolo-edge/yard/zones/lawn/occupancy");
  EXPECT_EQ(lawn["device"]["via_device"], node);
  EXPECT_EQ(lawn["name"], "lawn occupancy");

  // The yard removed: what it had is what the daemon removes (an empty retained config each).
  const auto without_yard = discovery_configs(settings, {"person"}, {"door"}, scene_places(&door));
  for (const auto& [topic, config] : configs) {
    EXPECT_EQ(without_yard.contains(topic), !topic.starts_with(sensor + "yard_")) << topic;
  }
}

TEST(MqttMessages, OneCameraKeepsTheDaemonsSensorsAsTheyWere) {
  const DiscoverySettings settings{"homeassistant", MqttTopics{"yolo-edge"}, "pi5", 10};
  const auto before = discovery_configs(settings, {"person"});
  const auto main = discovery_configs(settings, {"person"}, {std::string(config::kMainCamera)});
  for (const auto& [topic, config] : before) {
    ASSERT_TRUE(main.contains(topic)) << topic;
    EXPECT_EQ(main.at(topic), config) << topic;
  }
  EXPECT_EQ(main.size(), before.size() + 4) << "the camera's fps and source";
}

}  // namespace
}  // namespace yolo::daemon
