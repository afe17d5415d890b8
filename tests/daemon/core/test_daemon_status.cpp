// SPDX-License-Identifier: Apache-2.0
// The daemon's status as JSON (daemon/core/daemon_status.cpp): what GET /api/status serves and
// MQTT publishes, every optional part present only when it says something, numbers rounded.
#include "daemon/core/daemon_status.h"

#include <gtest/gtest.h>

namespace yolo::daemon {
namespace {

using nlohmann::json;

// A decision with nothing measured behind it.
ThreadDecision decision(int from, int to, std::string kind) {
  ThreadDecision d;
  d.from = from;
  d.to = to;
  d.kind = std::move(kind);
  return d;
}

TEST(DaemonStatus, StatesHaveTheirNames) {
  EXPECT_EQ(state_name(DaemonState::kStarting), "starting");
  EXPECT_EQ(state_name(DaemonState::kRunning), "running");
  EXPECT_EQ(state_name(DaemonState::kReloading), "reloading");
  EXPECT_EQ(state_name(SourceState::kOpening), "opening");
  EXPECT_EQ(state_name(SourceState::kStreaming), "streaming");
  EXPECT_EQ(state_name(SourceState::kLost), "lost");
  EXPECT_EQ(state_name(SourceState::kStopped), "stopped");
}

TEST(DaemonStatus, ASourceShowsItsOptionalPartsOnlyWhenSet) {
  SourceStatus s;
  s.state = SourceState::kStreaming;
  s.uri = "/dev/video0";
  s.frames = 1200;
  s.reopened = 2;
  s.dropped = 7;
  EXPECT_EQ(to_json(s), json({{"state", "streaming"},
                              {"uri", "/dev/video0"},
                              {"frames", 1200},
                              {"reopened", 2},
                              {"dropped", 7}}));
  s.state = SourceState::kLost;
  s.description = "/dev/video0 640x480 MJPG 30 fps";
  s.last_error = "VIDIOC_DQBUF: No such device";
  s.retry_in_s = 2.5;
  const json lost = to_json(s);
  EXPECT_EQ(lost["state"], "lost");
  EXPECT_EQ(lost["description"], "/dev/video0 640x480 MJPG 30 fps");
  EXPECT_EQ(lost["last_error"], "VIDIOC_DQBUF: No such device");
  EXPECT_EQ(lost["retry_in_s"], 2.5);
}

TEST(DaemonStatus, AThreadDecisionKeepsItsLatenciesByCountRounded) {
  const ThreadDecision d{.from = 2,
                         .to = 1,
                         .kind = "settle",
                         .reason = "settled on 1 thread: 12.1 ms median vs 13.0 ms at 2",
                         .latency_ms = {{1, 12.123456}, {2, 13.0}, {4, 15.999}}};
  EXPECT_EQ(to_json(d), json({{"from", 2},
                              {"to", 1},
                              {"kind", "settle"},
                              {"reason", "settled on 1 thread: 12.1 ms median vs 13.0 ms at 2"},
                              {"latency_ms", {{"1", 12.12}, {"2", 13.0}, {"4", 16.0}}}}));
  EXPECT_EQ(to_json(decision(2, 2, "fixed"))["latency_ms"], json::object())
      << "nothing measured is an empty object, not null";
}

TEST(DaemonStatus, InferenceNamesEachStagesLatencyAndLeavesOutWhatIsNotThere) {
  InferenceStatus s;
  s.frames = 300;
  s.fps = 14.23456;
  s.threads = 2;
  s.settled = true;
  EXPECT_EQ(to_json(s), json({{"frames", 300}, {"fps", 14.23}, {"threads", 2}, {"settled", true}}))
      << "no latency before results, no trial, no decision";

  s.trial_frames_left = 40;
  for (std::size_t i = 0; i < kStages.size(); ++i) {
    s.latency_ms.push_back({.p50 = 10.0 * static_cast<double>(i + 1) + 0.004, .p90 = 99.999});
  }
  s.last_decision = decision(1, 2, "explore");
  const json j = to_json(s);
  EXPECT_EQ(j["trial_frames_left"], 40);
  ASSERT_EQ(j["latency_ms"].size(), kStages.size());
  EXPECT_EQ(j["latency_ms"]["capture_age"], json({{"p50", 10.0}, {"p90", 100.0}}));
  EXPECT_EQ(j["latency_ms"]["preprocess"]["p50"], 20.0);
  EXPECT_EQ(j["latency_ms"]["inference"]["p50"], 30.0);
  EXPECT_EQ(j["latency_ms"]["postprocess"]["p50"], 40.0);
  EXPECT_EQ(j["latency_ms"]["end_to_end"]["p50"], 50.0);
  EXPECT_EQ(j["last_decision"]["kind"], "explore");
  EXPECT_EQ(j["last_decision"]["to"], 2);
}

TEST(DaemonStatus, FewerLatenciesThanStagesNameOnlyThoseGiven) {
  InferenceStatus s;
  s.latency_ms = {{.p50 = 1, .p90 = 2}, {.p50 = 3, .p90 = 4}};
  const json latency = to_json(s)["latency_ms"];
  EXPECT_EQ(latency, json({{"capture_age", {{"p50", 1.0}, {"p90", 2.0}}},
                           {"preprocess", {{"p50", 3.0}, {"p90", 4.0}}}}));
}

DaemonStatus running() {
  DaemonStatus s;
  s.version = "1.4.0";
  s.state = DaemonState::kRunning;
  s.host = "pi5";
  s.config_file = "/etc/yolo-edge/config.yaml";
  s.uptime_s = 3600.6;
  s.status_line = "INT8 2 threads 14.2 FPS 52C";
  s.model.name = "yolo11n_320_int8";
  s.model.precision = runtime::Precision::kInt8;
  s.model.file = "/var/lib/yolo-edge/models/yolo11n_320_int8.onnx";
  s.model.input_width = 320;
  s.model.input_height = 256;
  s.model.imgsz = "auto";
  s.model.wanted = config::Precision::kInt8;
  s.cameras.resize(1);
  s.cameras[0].name = "main";
  s.cameras.at(0).source.state = SourceState::kStreaming;
  s.cameras.at(0).source.uri = "/dev/video0";
  s.inference.frames = 51000;
  s.inference.fps = 14.2049;
  s.inference.threads = 2;
  s.inference.settled = true;
  s.threads_mode = config::ThreadMode::kEfficiency;
  return s;
}

TEST(DaemonStatus, TheWholeStatusWithNothingOptional) {
  const json j = to_json(running());
  EXPECT_EQ(j["version"], "1.4.0");
  EXPECT_EQ(j["state"], "running");
  EXPECT_EQ(j["host"], "pi5");
  EXPECT_EQ(j["config"], "/etc/yolo-edge/config.yaml");
  EXPECT_EQ(j["uptime_s"], 3601.0) << "whole seconds";
  EXPECT_EQ(j["status_line"], "INT8 2 threads 14.2 FPS 52C");
  EXPECT_EQ(j["model"], json({{"name", "yolo11n_320_int8"},
                              {"precision", "int8"},
                              {"file", "/var/lib/yolo-edge/models/yolo11n_320_int8.onnx"},
                              {"input", {320, 256}},
                              {"imgsz", "auto"},
                              {"wanted_precision", "int8"}}));
  EXPECT_EQ(j["source"]["state"], "streaming") << "the first camera's, as before cameras:";
  ASSERT_EQ(j["cameras"].size(), 1u);
  EXPECT_EQ(j["cameras"][0]["name"], "main");
  EXPECT_EQ(j["cameras"][0]["source"], j["source"]);
  for (const char* key :
       {"detect_fps", "camera_fps", "detection_fps", "skipped_fps", "detected", "skipped"}) {
    EXPECT_EQ(j["cameras"][0][key], 0) << key;
  }
  EXPECT_FALSE(j["cameras"][0].contains("warning"));
  // The inference's figures stand at the top and under "threads".
  EXPECT_EQ(j["fps"], 14.2);
  EXPECT_EQ(j["frames"], 51000);
  EXPECT_EQ(j["threads"], json({{"count", 2}, {"mode", "efficiency"}, {"settled", true}}));
  EXPECT_EQ(j["outputs"], json::object()) << "no outputs is an empty object";
  for (const char* absent : {"latency_ms", "device", "temperature_c", "last_error"}) {
    EXPECT_FALSE(j.contains(absent)) << absent;
  }
}

TEST(DaemonStatus, TheWholeStatusWithEveryOptionalPart) {
  DaemonStatus s = running();
  s.model.pending = "int8 pending: quantizing (40 %)";
  s.model.warnings = {"slow: 3 Conv nodes stay fp32"};
  s.model.automatic = ModelStatus::Auto{"decided", json({{"chose", "int8"}})};
  s.model.precision_override = ModelStatus::Override{"fp32", "POST /api/precision from 10.0.0.2"};
  s.inference.trial_frames_left = 12;
  s.inference.latency_ms.assign(kStages.size(), {.p50 = 5, .p90 = 6});
  s.inference.last_decision = decision(1, 2, "explore");
  telemetry::Sample device;
  device.thermal = {{"thermal_zone0", "cpu-thermal", 52.5}, {"thermal_zone1", "gpu", 61.0}};
  s.device = device;
  s.outputs = {{"field-log", {{"ok", true}}}, {"mqtt", {{"ok", false}, {"warning", "no broker"}}}};
  s.last_error = LastError{"2026-11-20T10:00:00Z", "camera lost"};

  const json j = to_json(s);
  EXPECT_EQ(j["model"]["pending"], "int8 pending: quantizing (40 %)");
  EXPECT_EQ(j["model"]["warnings"], json::array({"slow: 3 Conv nodes stay fp32"}));
  EXPECT_EQ(j["model"]["auto"], json({{"state", "decided"}, {"decision", {{"chose", "int8"}}}}));
  EXPECT_EQ(j["model"]["precision_override"],
            json({{"value", "fp32"}, {"origin", "POST /api/precision from 10.0.0.2"}}));
  EXPECT_EQ(j["model"]["trial_frames_left"], 12) << "a trial is the model's";
  EXPECT_FALSE(j.contains("trial_frames_left"));
  EXPECT_EQ(j["latency_ms"].size(), kStages.size());
  EXPECT_EQ(j["threads"]["last_decision"]["kind"], "explore");
  EXPECT_EQ(j["device"], telemetry::to_json(device));
  EXPECT_EQ(j["temperature_c"], 61.0) << "the hottest zone";
  EXPECT_EQ(j["outputs"], json({{"field-log", {{"ok", true}}},
                                {"mqtt", {{"ok", false}, {"warning", "no broker"}}}}));
  EXPECT_EQ(j["last_error"], json({{"time", "2026-11-20T10:00:00Z"}, {"message", "camera lost"}}));
}

TEST(DaemonStatus, AnAutoPrecisionWithoutADecisionShowsItsStateAlone) {
  DaemonStatus s = running();
  s.model.automatic = ModelStatus::Auto{"measuring", json()};
  EXPECT_EQ(to_json(s)["model"]["auto"], json({{"state", "measuring"}}));
}

TEST(DaemonStatus, ADeviceWithoutThermalZonesHasNoTemperature) {
  DaemonStatus s = running();
  telemetry::Sample device;
  device.rss_bytes = 50'000'000;
  s.device = device;
  const json j = to_json(s);
  EXPECT_TRUE(j.contains("device"));
  EXPECT_FALSE(j.contains("temperature_c"));
}

}  // namespace
}  // namespace yolo::daemon
