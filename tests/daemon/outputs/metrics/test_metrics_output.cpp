// SPDX-License-Identifier: Apache-2.0
// MetricsOutput: what the publishers receive becomes yolo_edge_* series in the Prometheus text
// format 0.0.4 (daemon/outputs/metrics/metrics_output.cpp), read back with a strict parser
// (tests/support/prometheus_text.h) and, where Prometheus's own promtool is installed, checked by
// it; and the fleet dashboard (docs/grafana/yolo-edge.json) asks only for series the daemon serves.
#include "daemon/outputs/metrics/metrics_output.h"

#include "daemon/core/events.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <new>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/daemon/frame_parts.h"
#include "tests/support/prometheus_text.h"
#include "tests/support/run_process.h"
#include "tests/support/temp_folder.h"
#include "tests/support/tree_paths.h"

namespace {

// Allocations made by the thread that counts them (publish()'s cost); other threads and the
// rest of the time are not counted.
thread_local bool counting_allocations = false;
std::atomic<long> allocations{0};

}  // namespace

void* operator new(std::size_t size) {
  if (counting_allocations) ++allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}

// GCC sees the standard operator new inlined at call sites and takes free() here for a mismatch;
// both are replaced together, so they match.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept {
  std::free(p);
}

void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
#pragma GCC diagnostic pop

namespace yolo::daemon {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::PromLabels;
using test::PromText;

std::shared_ptr<const ModelInfo> model(const std::string& name, const std::string& precision) {
  auto info = std::make_shared<ModelInfo>();
  info->name = name;
  info->precision = runtime::parse_precision(precision).value();
  info->path = "/var/lib/yolo-edge/models/" + name + ".onnx";
  info->input_width = info->input_height = 320;
  info->names = vision::ClassNames({"person", "bicycle", "car"});
  return info;
}

std::shared_ptr<const FrameResult> frame(std::shared_ptr<const ModelInfo> info,
                                         StageTimes times = {4, 2, 45, 1, 52},
                                         vision::Detections detections = {{0, 0.9f, {}}},
                                         std::int64_t dropped = 0) {
  auto r = std::make_shared<FrameResult>();
  r->model = std::move(info);
  r->times = times;
  r->detections = std::move(detections);
  r->threads = 4;
  r->dropped = dropped;
  return r;
}

// What a Pi 5 with an INA219 on its supply reports.
telemetry::Sample pi_sample(double energy_j = 120.5) {
  telemetry::Sample s;
  s.thermal = {{"thermal_zone0", "cpu-thermal", 61.3}};
  s.clocks = {{0, 2400}, {1, 2400}, {2, 1500}, {3, 1500}};
  s.arm_clock_mhz = 2400;
  s.throttle = telemetry::ThrottleState{(1u << 2) | (1u << 18) | (1u << 16)};
  s.under_voltage_alarm = false;
  s.power = {{"ina219 (hwmon2)", 6.2}, {"pmic", 5.9}};
  s.power_w = 6.2;
  s.energy_j = energy_j;
  s.cpu_busy = {0.9, 0.8, 0.7, 0.95};
  s.cpu_busy_total = 0.84;
  s.rss_bytes = 182'000'000;
  return s;
}

DaemonStatus status(runtime::Precision precision = runtime::Precision::kInt8) {
  const std::string name = std::string("yolo11n_320_") + runtime::precision_name(precision);
  DaemonStatus s;
  s.state = DaemonState::kRunning;
  s.uptime_s = 3600;
  s.inference.fps = 21.5;
  s.model.name = name;
  s.model.precision = precision;
  s.model.file = "/var/lib/yolo-edge/models/" + name + ".onnx";
  s.cameras.resize(1);
  s.cameras[0].name = "main";
  s.cameras.at(0).source.state = SourceState::kStreaming;
  return s;
}

Event event(fieldlog::EventKind kind, config::LogLevel level = config::LogLevel::kInfo,
            json fields = json::object()) {
  return {.kind = kind, .level = level, .time = {}, .message = {}, .fields = std::move(fields)};
}

// A daemon's first minutes: frames at fp32 then at int8 after a swap, a telemetry sample, the
// status, a reload of each kind, the camera lost and back, an error.
void feed(MetricsOutput& m) {
  const auto fp32 = model("yolo11n_320_fp32", "fp32");
  const auto int8 = model("yolo11n_320_int8", "int8");
  for (int i = 0; i < 10; ++i) m.publish(frame(fp32, {4, 2, 45, 1, 52}, {{0, 0.9f, {}}}, i % 2));
  for (int i = 0; i < 5; ++i) {
    m.publish(frame(int8, {3, 2, 25, 1, 31}, {{0, 0.8f, {}}, {2, 0.7f, {}}}));
  }
  m.telemetry(pi_sample());
  m.stats(status());
  m.event(event(fieldlog::EventKind::kConfig));
  m.event(event(fieldlog::EventKind::kConfigRejected, config::LogLevel::kError));
  m.event(event(fieldlog::EventKind::kSwap, config::LogLevel::kInfo, {{"to_precision", "int8"}}));
  m.event(event(fieldlog::EventKind::kSourceLost, config::LogLevel::kWarning));
  m.event(event(fieldlog::EventKind::kSourceOpened, config::LogLevel::kInfo, {{"reopened", true}}));
  m.event(event(fieldlog::EventKind::kFrameFailed, config::LogLevel::kError));
}

PromText rendered(const MetricsOutput& m) {
  return PromText::parse(m.render());
}

// Expects each series of `metric` that `label` tells apart (a flag, a state, a result, a kind)
// to hold the value given for its label value.
void expect_series(const PromText& text, const std::string& metric, const std::string& label,
                   const std::vector<std::pair<std::string, double>>& values) {
  for (const auto& [name, value] : values) {
    EXPECT_EQ(text.value(metric, {{label, name}}), value)
        << metric << "{" << label << "=" << name << "}";
  }
}

TEST(MetricsOutput, ARealisticFeedRendersAValidExpositionWithHelpAndUnits) {
  MetricsOutput m;
  feed(m);
  const PromText text = rendered(m);
  for (const auto& [name, family] : text.families()) {
    SCOPED_TRACE(name);
    EXPECT_EQ(name.rfind("yolo_edge_", 0), 0u);
    ASSERT_TRUE(family.help.has_value());
    EXPECT_FALSE(family.help->empty());
    EXPECT_NE(family.type, "untyped");
    EXPECT_EQ(family.type == "counter", name.ends_with("_total"));
  }
  EXPECT_EQ(
      text.value("yolo_edge_frames_total", {{"model", "yolo11n_320_fp32"}, {"precision", "fp32"}}),
      10);
  EXPECT_EQ(text.value("yolo_edge_dropped_frames_total"), 5);
  EXPECT_EQ(text.value("yolo_edge_detections_total",
                       {{"model", "yolo11n_320_int8"}, {"precision", "int8"}, {"label", "car"}}),
            5);
  EXPECT_EQ(text.value("yolo_edge_inference_threads"), 4);
  EXPECT_EQ(text.value("yolo_edge_temperature_celsius",
                       {{"zone", "thermal_zone0"}, {"type", "cpu-thermal"}}),
            61.3);
  EXPECT_EQ(text.value("yolo_edge_cpu_frequency_hertz", {{"cpu", "2"}}), 1.5e9);
  EXPECT_EQ(text.value("yolo_edge_arm_clock_hertz"), 2.4e9);
  EXPECT_EQ(text.value("yolo_edge_power_watts"), 6.2);
  EXPECT_EQ(text.value("yolo_edge_power_source_watts", {{"source", "pmic"}}), 5.9);
  EXPECT_EQ(text.value("yolo_edge_energy_joules_total"), 120.5);
  EXPECT_EQ(text.value("yolo_edge_cpu_busy_ratio"), 0.84);
  EXPECT_EQ(text.value("yolo_edge_cpu_core_busy_ratio", {{"cpu", "3"}}), 0.95);
  EXPECT_EQ(text.value("yolo_edge_resident_memory_bytes"), 182e6);
  EXPECT_EQ(text.value("yolo_edge_under_voltage_alarm"), 0);
  EXPECT_EQ(text.value("yolo_edge_fps"), 21.5);
  EXPECT_EQ(text.value("yolo_edge_state", {{"state", "running"}}), 1);
  EXPECT_EQ(text.value("yolo_edge_source_state", {{"camera", "main"}, {"state", "streaming"}}), 1);
  EXPECT_EQ(text.value("yolo_edge_model_info",
                       {{"model", "yolo11n_320_int8"},
                        {"precision", "int8"},
                        {"file", "/var/lib/yolo-edge/models/yolo11n_320_int8.onnx"}}),
            1);
  EXPECT_EQ(text.samples("yolo_edge_build_info").size(), 1u);
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  EXPECT_NEAR(*text.value("yolo_edge_start_time_seconds"), now - 3600, 5);
}

TEST(MetricsOutput, ThrottleBitsAreSeparateFlagsNowAndSinceBoot) {
  MetricsOutput m;
  m.telemetry(pi_sample());
  const PromText text = rendered(m);
  // Throttled now; under-voltage and throttling seen since boot.
  expect_series(
      text, "yolo_edge_throttle_active", "condition",
      {{"throttled", 1}, {"under_voltage", 0}, {"frequency_capped", 0}, {"soft_temp_limit", 0}});
  expect_series(text, "yolo_edge_throttle_since_boot", "condition",
                {{"throttled", 1}, {"under_voltage", 1}, {"soft_temp_limit", 0}});
}

TEST(MetricsOutput, OnlyWhatTheDeviceHasIsServedAndAVanishedSensorLosesItsSeries) {
  MetricsOutput m;
  m.telemetry(pi_sample());
  // This machine: one x86 package zone, RAPL, no Pi firmware, no voltage sensor.
  telemetry::Sample pc;
  pc.thermal = {{"thermal_zone1", "x86_pkg_temp", 48}};
  pc.power = {{"rapl package-0", 12}};
  pc.power_w = 12;
  m.telemetry(pc);
  const PromText text = rendered(m);
  const auto names = text.sample_names();
  for (const std::string gone :
       {"yolo_edge_arm_clock_hertz", "yolo_edge_throttle_active", "yolo_edge_throttle_since_boot",
        "yolo_edge_under_voltage_alarm", "yolo_edge_cpu_frequency_hertz",
        "yolo_edge_cpu_busy_ratio", "yolo_edge_resident_memory_bytes"}) {
    EXPECT_FALSE(names.contains(gone)) << gone;
  }
  ASSERT_EQ(text.samples("yolo_edge_temperature_celsius").size(), 1u);
  EXPECT_EQ(text.value("yolo_edge_temperature_celsius",
                       {{"zone", "thermal_zone1"}, {"type", "x86_pkg_temp"}}),
            48);
  ASSERT_EQ(text.samples("yolo_edge_power_source_watts").size(), 1u);
  // A counter keeps what it counted even when the sensor is gone.
  EXPECT_EQ(text.value("yolo_edge_energy_joules_total"), 120.5);

  // Nothing at all from a bare machine but the per-process series.
  MetricsOutput bare;
  bare.telemetry(telemetry::Sample{});
  const auto bare_names = rendered(bare).sample_names();
  EXPECT_FALSE(bare_names.contains("yolo_edge_temperature_celsius"));
  EXPECT_FALSE(bare_names.contains("yolo_edge_energy_joules_total"));
  EXPECT_FALSE(bare_names.contains("yolo_edge_power_watts"));
}

TEST(MetricsOutput, EnergyCountsOnWhenTheSamplerStartsAgain) {
  MetricsOutput m;
  m.telemetry(pi_sample(100));
  m.telemetry(pi_sample(130));
  // The telemetry settings changed: the sampler counts from 0 again.
  m.telemetry(pi_sample(5));
  m.telemetry(pi_sample(8));
  EXPECT_EQ(rendered(m).value("yolo_edge_energy_joules_total"), 138);
}

TEST(MetricsOutput, HistogramBucketsAreCumulativeInSeconds) {
  MetricsOutput m;
  const auto fp32 = model("yolo11n_320_fp32", "fp32");
  // Inference times 4 ms, 45 ms, 45 ms, 700 ms and 9 s (beyond the last bucket).
  for (double ms : {4.0, 45.0, 45.0, 700.0, 9000.0}) m.publish(frame(fp32, {1, 1, ms, 1, ms + 3}));
  const PromText text = rendered(m);
  const PromLabels series = {
      {"model", "yolo11n_320_fp32"}, {"precision", "fp32"}, {"stage", "inference"}};
  const auto bucket = [&](const std::string& le) {
    PromLabels labels = series;
    labels["le"] = le;
    return text.value("yolo_edge_stage_latency_seconds_bucket", labels);
  };
  EXPECT_EQ(bucket("0.001"), 0);
  EXPECT_EQ(bucket("0.005"), 1);
  EXPECT_EQ(bucket("0.03"), 1);
  EXPECT_EQ(bucket("0.05"), 3);
  EXPECT_EQ(bucket("0.5"), 3);
  EXPECT_EQ(bucket("0.75"), 4);
  EXPECT_EQ(bucket("5"), 4);
  EXPECT_EQ(bucket("+Inf"), 5);
  EXPECT_EQ(text.value("yolo_edge_stage_latency_seconds_count", series), 5);
  EXPECT_NEAR(*text.value("yolo_edge_stage_latency_seconds_sum", series), 9.794, 1e-9);
  // Every stage has its histogram, and the buckets cover 1 ms to 5 s.
  for (const std::string stage :
       {"capture_age", "preprocess", "inference", "postprocess", "end_to_end"}) {
    PromLabels labels = series;
    labels["stage"] = stage;
    EXPECT_EQ(text.value("yolo_edge_stage_latency_seconds_count", labels), 5) << stage;
  }
  std::size_t buckets = 0;
  for (const auto& s : text.samples("yolo_edge_stage_latency_seconds_bucket")) {
    buckets += s.labels.at("stage") == "inference";
  }
  EXPECT_EQ(buckets, 18u);
}

TEST(MetricsOutput, CountersOnlyGrowAcrossScrapes) {
  MetricsOutput m;
  feed(m);
  const PromText before = rendered(m);
  feed(m);
  const PromText after = rendered(m);
  std::size_t compared = 0;
  for (const auto& [name, family] : before.families()) {
    if (family.type != "counter" && family.type != "histogram") continue;
    for (const auto& s : family.samples) {
      const auto later = after.value(s.name, s.labels);
      ASSERT_TRUE(later.has_value()) << s.name << " is gone";
      EXPECT_GE(*later, s.value) << s.name;
      ++compared;
    }
  }
  EXPECT_GT(compared, 100u);
  EXPECT_EQ(
      after.value("yolo_edge_frames_total", {{"model", "yolo11n_320_int8"}, {"precision", "int8"}}),
      10);
  expect_series(after, "yolo_edge_reloads_total", "result", {{"ok", 2}, {"rejected", 2}});
  EXPECT_EQ(after.value("yolo_edge_model_swaps_total"), 2);
  EXPECT_EQ(after.value("yolo_edge_source_lost_total"), 2);
  EXPECT_EQ(after.value("yolo_edge_source_reopened_total"), 2);
  expect_series(after, "yolo_edge_errors_total", "kind",
                {{"frame_failed", 2}, {"config_rejected", 2}});
}

TEST(MetricsOutput, EventCountersStartAtZeroAndAFirstOpeningIsNoReopening) {
  MetricsOutput m;
  m.event(
      event(fieldlog::EventKind::kSourceOpened, config::LogLevel::kInfo, {{"reopened", false}}));
  m.event(event(fieldlog::EventKind::kThreads));
  m.event(event(fieldlog::EventKind::kModelError, config::LogLevel::kError));
  const PromText text = rendered(m);
  // Present from the start, so rate() and increase() see the first one.
  expect_series(text, "yolo_edge_reloads_total", "result", {{"ok", 0}, {"rejected", 0}});
  EXPECT_EQ(text.value("yolo_edge_model_swaps_total"), 0);
  EXPECT_EQ(text.value("yolo_edge_source_lost_total"), 0);
  EXPECT_EQ(text.value("yolo_edge_source_reopened_total"), 0);
  EXPECT_EQ(text.value("yolo_edge_dropped_frames_total"), 0);
  // Every kind of error is there at 0 before the first (a dashboard's panel shows 0, not "No
  // data"); the one that came counts 1.
  const auto specs = fieldlog::event_specs();
  const auto errors =
      std::count_if(specs.begin(), specs.end(), [](const auto& e) { return e.error; });
  ASSERT_EQ(text.samples("yolo_edge_errors_total").size(), static_cast<std::size_t>(errors));
  for (const fieldlog::EventSpec& spec : specs) {
    if (!spec.error) continue;
    const std::string_view kind = spec.name;
    EXPECT_EQ(text.value("yolo_edge_errors_total", {{"kind", std::string(kind)}}),
              kind == "model_error" ? 1 : 0)
        << kind;
  }
}

TEST(MetricsOutput, ASecondModelOrPrecisionStartsNewSeriesAndTheOldOnesStay) {
  MetricsOutput m;
  const auto fp32 = model("yolo11n_320_fp32", "fp32");
  for (int i = 0; i < 3; ++i) m.publish(frame(fp32));
  const auto int8 = model("yolo11n_320_int8", "int8");
  for (int i = 0; i < 2; ++i) m.publish(frame(int8));
  // The same model loaded again (a reload) counts on in its series.
  m.publish(frame(model("yolo11n_320_fp32", "fp32")));
  const PromText text = rendered(m);
  EXPECT_EQ(text.samples("yolo_edge_frames_total").size(), 2u);
  EXPECT_EQ(
      text.value("yolo_edge_frames_total", {{"model", "yolo11n_320_fp32"}, {"precision", "fp32"}}),
      4);
  EXPECT_EQ(
      text.value("yolo_edge_frames_total", {{"model", "yolo11n_320_int8"}, {"precision", "int8"}}),
      2);
  EXPECT_EQ(
      text.value("yolo_edge_stage_latency_seconds_count",
                 {{"model", "yolo11n_320_int8"}, {"precision", "int8"}, {"stage", "inference"}}),
      2);
  EXPECT_EQ(text.samples("yolo_edge_stage_latency_seconds_count").size(), 10u);

  // The model info names only the model running now.
  m.stats(status(runtime::Precision::kFp32));
  m.stats(status(runtime::Precision::kInt8));
  const auto info = rendered(m).samples("yolo_edge_model_info");
  ASSERT_EQ(info.size(), 1u);
  EXPECT_EQ(info[0].labels.at("precision"), "int8");
}

TEST(MetricsOutput, StatesAreOneForTheCurrentAndZeroForTheOthersSeen) {
  MetricsOutput m;
  DaemonStatus s = status();
  s.cameras.at(0).source.state = SourceState::kOpening;
  s.state = DaemonState::kStarting;
  m.stats(s);
  s.cameras.at(0).source.state = SourceState::kLost;
  s.state = DaemonState::kReloading;
  m.stats(s);
  const PromText text = rendered(m);
  EXPECT_EQ(text.value("yolo_edge_source_state", {{"camera", "main"}, {"state", "lost"}}), 1);
  EXPECT_EQ(text.value("yolo_edge_source_state", {{"camera", "main"}, {"state", "opening"}}), 0);
  expect_series(text, "yolo_edge_state", "state", {{"reloading", 1}, {"starting", 0}});
}

// Frigate's names, by camera; a camera a reload removed leaves every series.
TEST(MetricsOutput, EachCameraHasItsFpsDetectionFpsSkippedFpsAndState) {
  MetricsOutput m;
  DaemonStatus s = status();
  s.cameras.resize(2);
  s.cameras[1].name = "yard";
  s.cameras[0].camera_fps = 30;
  s.cameras[0].detection_fps = 5;
  s.cameras[1].camera_fps = 10;
  s.cameras[1].detection_fps = 4.5;
  s.cameras[1].skipped_fps = 0.5;
  s.cameras[1].source.state = SourceState::kLost;
  m.stats(s);
  PromText text = rendered(m);
  EXPECT_EQ(text.value("yolo_edge_camera_fps", {{"camera", "main"}}), 30);
  EXPECT_EQ(text.value("yolo_edge_detection_fps", {{"camera", "main"}}), 5);
  EXPECT_EQ(text.value("yolo_edge_skipped_fps", {{"camera", "main"}}), 0);
  EXPECT_EQ(text.value("yolo_edge_camera_fps", {{"camera", "yard"}}), 10);
  EXPECT_EQ(text.value("yolo_edge_detection_fps", {{"camera", "yard"}}), 4.5);
  EXPECT_EQ(text.value("yolo_edge_skipped_fps", {{"camera", "yard"}}), 0.5);
  EXPECT_EQ(text.value("yolo_edge_source_state", {{"camera", "yard"}, {"state", "lost"}}), 1);
  EXPECT_EQ(text.value("yolo_edge_source_state", {{"camera", "main"}, {"state", "streaming"}}), 1);
  s.cameras.pop_back();
  m.stats(s);
  text = rendered(m);
  EXPECT_FALSE(text.value("yolo_edge_camera_fps", {{"camera", "yard"}}));
  EXPECT_FALSE(text.value("yolo_edge_source_state", {{"camera", "yard"}, {"state", "lost"}}));
  EXPECT_EQ(text.value("yolo_edge_detection_fps", {{"camera", "main"}}), 5);
}

// Motion's figures only for a camera with motion on, and only once it has frames.
TEST(MetricsOutput, ACameraWithMotionOnHasItsMotionFigures) {
  MetricsOutput m;
  DaemonStatus s = status();
  s.cameras.resize(2);
  s.cameras[1].name = "yard";
  s.cameras[1].motion = MotionStatus{.frames = 100,
                                     .whole_share = 0.02,
                                     .regions_share = 0.08,
                                     .still_share = 0.9,
                                     .runs_per_frame = 0.14,
                                     .ms_p50 = 0.8,
                                     .ms_p90 = 1.1};
  m.stats(s);
  PromText text = rendered(m);
  EXPECT_EQ(text.value("yolo_edge_motion_ms", {{"camera", "yard"}}), 0.8);
  EXPECT_EQ(text.value("yolo_edge_model_runs_per_frame", {{"camera", "yard"}}), 0.14);
  EXPECT_EQ(text.value("yolo_edge_still_frame_share", {{"camera", "yard"}}), 0.9);
  EXPECT_FALSE(text.value("yolo_edge_motion_ms", {{"camera", "main"}})) << "motion off";
  s.cameras[1].motion = MotionStatus{};
  m.stats(s);
  EXPECT_FALSE(rendered(m).value("yolo_edge_motion_ms", {{"camera", "yard"}})) << "no frames yet";
}

TEST(MetricsOutput, LabelValuesAndHelpAreEscaped) {
  MetricsOutput m;
  const std::string tricky = "back\\slash \"quoted\"\nnew line";
  m.set_gauge("yolo_edge_test_gauge", "A help with a \\ and a\nnewline.", {{"name", tricky}}, 2);
  m.add_counter("yolo_edge_test_total", "Counted.", {{"name", tricky}}, 3);
  // A class name from a model's metadata: any bytes, here one that is not UTF-8.
  auto info = std::make_shared<ModelInfo>(*model("odd", "fp32"));
  info->names = vision::ClassNames({"caf\xE9", "\"dog\""});
  m.publish(frame(info, {}, {{0, 0.5f, {}}, {1, 0.5f, {}}}));
  const std::string text = m.render();
  EXPECT_NE(text.find(R"(name="back\\slash \"quoted\"\nnew line")"), std::string::npos) << text;
  const PromText parsed = PromText::parse(text);
  EXPECT_EQ(parsed.value("yolo_edge_test_gauge", {{"name", tricky}}), 2);
  EXPECT_EQ(parsed.value("yolo_edge_test_total", {{"name", tricky}}), 3);
  EXPECT_EQ(parsed.families().at("yolo_edge_test_gauge").help, "A help with a \\ and a\nnewline.");
  const PromLabels odd = {{"model", "odd"}, {"precision", "fp32"}};
  PromLabels cafe = odd, dog = odd;
  cafe["label"] = "caf\xEF\xBF\xBD";
  dog["label"] = "\"dog\"";
  EXPECT_EQ(parsed.value("yolo_edge_detections_total", cafe), 1);
  EXPECT_EQ(parsed.value("yolo_edge_detections_total", dog), 1);
}

TEST(MetricsOutput, OtherPublishersAddCountersAndGauges) {
  MetricsOutput m;
  m.set_gauge("yolo_edge_http_viewers", "MJPEG stream clients.", {}, 3);
  m.set_gauge("yolo_edge_http_viewers", "MJPEG stream clients.", {}, 2);
  m.set_gauge("yolo_edge_mqtt_connected", "1 while connected to the broker.", {}, 1);
  m.add_counter("yolo_edge_http_requests_total", "Requests.", {{"path", "/metrics"}});
  m.add_counter("yolo_edge_http_requests_total", "Requests.", {{"path", "/metrics"}}, 2);
  const PromText text = rendered(m);
  EXPECT_EQ(text.families().at("yolo_edge_http_viewers").type, "gauge");
  EXPECT_EQ(text.value("yolo_edge_http_viewers"), 2);
  EXPECT_EQ(text.value("yolo_edge_mqtt_connected"), 1);
  EXPECT_EQ(text.families().at("yolo_edge_http_requests_total").type, "counter");
  EXPECT_EQ(text.value("yolo_edge_http_requests_total", {{"path", "/metrics"}}), 3);
  // A counter that follows a total kept elsewhere: up to it, never down.
  m.follow_counter("yolo_edge_http_login_failures_total", "Failed logins.", {}, 4);
  m.follow_counter("yolo_edge_http_login_failures_total", "Failed logins.", {}, 2);
  EXPECT_EQ(rendered(m).value("yolo_edge_http_login_failures_total"), 4);

  // Mistakes in our own code: said with the name, never rendered.
  EXPECT_THROW(m.add_counter("yolo_edge_http_requests", "No _total.", {}), std::invalid_argument);
  EXPECT_THROW(m.add_counter("yolo_edge_http_requests_total", "Down.", {}, -1),
               std::invalid_argument);
  EXPECT_THROW(m.set_gauge("yolo_edge_http_requests_total", "Other type.", {}, 1),
               std::invalid_argument);
  EXPECT_THROW(m.set_gauge("yolo-edge bad name", "Bad.", {}, 1), std::invalid_argument);
  EXPECT_THROW(m.set_gauge("yolo_edge_x", "Bad label.", {{"bad-label", "v"}}, 1),
               std::invalid_argument);
  EXPECT_THROW(m.set_gauge("yolo_edge_x", "Not a number.", {}, NAN), std::invalid_argument);
  try {
    m.set_gauge("yolo-edge bad name", "Bad.", {}, 1);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("yolo-edge bad name"), std::string::npos) << e.what();
  }
  rendered(m);
}

TEST(MetricsOutput, PublishAllocatesNothingOnceAModelsSeriesExist) {
  MetricsOutput m;
  const auto fp32 = model("yolo11n_320_fp32", "fp32");
  const auto result =
      frame(fp32, {4, 2, 45, 1, 52}, {{0, 0.9f, {}}, {1, 0.8f, {}}, {2, 0.7f, {}}}, 1);
  m.publish(result);  // creates the series
  constexpr int kFrames = 100'000;
  counting_allocations = true;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kFrames; ++i) m.publish(result);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  counting_allocations = false;
  EXPECT_EQ(allocations.load(), 0);
  const double ns = std::chrono::duration<double, std::nano>(elapsed).count() / kFrames;
  std::cout << "publish(): " << ns << " ns per frame with 3 detections\n";
  RecordProperty("publish_ns", std::to_string(ns));
  // A frame takes tens of milliseconds on a Pi; even a slow CI machine stays far below.
  EXPECT_LT(ns, 20'000);
  EXPECT_EQ(rendered(m).value("yolo_edge_frames_total",
                              {{"model", "yolo11n_320_fp32"}, {"precision", "fp32"}}),
            kFrames + 1);
}

TEST(MetricsOutput, ScrapesWhileFramesArriveSeeConsistentGrowingCounts) {
  MetricsOutput m;
  feed(m);
  std::atomic<bool> done{false};
  std::vector<std::jthread> threads;
  // Stops the threads however the test ends (jthread joins them).
  struct Stop {
    std::atomic<bool>& done;
    ~Stop() { done = true; }
  };
  threads.emplace_back([&] {
    const auto fp32 = model("yolo11n_320_fp32", "fp32");
    while (!done) m.publish(frame(fp32));
  });
  threads.emplace_back([&] {
    while (!done) {
      m.telemetry(pi_sample());
      m.stats(status());
      m.event(event(fieldlog::EventKind::kFrameFailed, config::LogLevel::kError));
    }
  });
  const Stop stop{done};
  double last = 0;
  const PromLabels labels = {{"model", "yolo11n_320_fp32"}, {"precision", "fp32"}};
  for (int i = 0; i < 50; ++i) {
    const PromText text = rendered(m);
    const double frames = *text.value("yolo_edge_frames_total", labels);
    EXPECT_GE(frames, last);
    last = frames;
  }
  done = true;
  threads.clear();
  EXPECT_GT(last, 10);
  EXPECT_EQ(m.status()["scrapes"], 50);

  const auto start = std::chrono::steady_clock::now();
  const std::string text = m.render();
  const double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  std::cout << "render(): " << us << " us for " << text.size() << " bytes\n";
  RecordProperty("render_us", std::to_string(us));
}

// --- Checks by Prometheus's own tool, where it is installed --------------------------------

// promtool, when it is on PATH (Debian's prometheus package; not installed by setup.sh since
// it brings the whole server).
bool have_promtool() {
  return test::run_process({"sh", "-c", "command -v promtool"}).status == 0;
}

TEST(MetricsOutput, PromtoolFindsNoProblemInTheExposition) {
  if (!have_promtool()) {
    GTEST_SKIP() << "promtool not found (Debian package prometheus): the strict parser above "
                    "checked the format";
  }
  MetricsOutput m;
  feed(m);
  test::TempFolder folder;
  const fs::path file = folder.write("metrics.txt", m.render());
  const auto r = test::run_process({"sh", "-c", "promtool check metrics < \"$0\"", file.string()});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(r.out + r.err, "") << "promtool lint findings";
}

// --- Tracked objects: zones, lines and their events -----------------------------------------

// The scene after a frame: the camera "main" with the zone door and the line road, `in` and `out`
// cars across road, `entries` people into door since `since`, `inside` in it now.
std::shared_ptr<const SceneState> scene(std::int64_t in, std::int64_t out, std::int64_t entries,
                                        int inside, std::chrono::system_clock::time_point since) {
  auto s = std::make_shared<SceneState>();
  s->camera = "main";
  test::add_line(*s, "road", {{"car", {in, out}}}, since);
  test::add_zone(*s, "door", {{"person", {entries, entries}}}, inside, since);
  return s;
}

std::shared_ptr<const FrameResult> tracked(std::shared_ptr<const SceneState> state, int tracks,
                                           std::vector<tracking::ObjectEventKind> kinds = {}) {
  auto r = std::make_shared<FrameResult>(*frame(model("yolo11n_320_fp32", "fp32")));
  r->scene = std::move(state);
  r->tracks.resize(static_cast<std::size_t>(tracks));
  for (const auto kind : kinds) {
    tracking::ObjectEvent e;
    e.kind = kind;
    e.camera = "main";
    r->object_events.push_back(e);
  }
  return r;
}

const PromLabels kRoadIn = {
    {"camera", "main"}, {"line", "road"}, {"direction", "in"}, {"class", "car"}};
const PromLabels kRoadOut = {
    {"camera", "main"}, {"line", "road"}, {"direction", "out"}, {"class", "car"}};
const PromLabels kDoorPeople = {{"camera", "main"}, {"zone", "door"}, {"class", "person"}};
const PromLabels kDoor = {{"camera", "main"}, {"zone", "door"}};
const PromLabels kMain = {{"camera", "main"}};

TEST(MetricsOutput, LinesZonesTracksAndEventsArePerCamera) {
  MetricsOutput m;
  const auto t0 = std::chrono::system_clock::now();
  m.publish(tracked(scene(3, 1, 2, 1, t0), 2,
                    {tracking::ObjectEventKind::kCross, tracking::ObjectEventKind::kEnter}));
  PromText text = rendered(m);
  EXPECT_EQ(text.value("yolo_edge_line_crossings_total", kRoadIn), 3);
  EXPECT_EQ(text.value("yolo_edge_line_crossings_total", kRoadOut), 1);
  EXPECT_EQ(text.value("yolo_edge_zone_entries_total", kDoorPeople), 2);
  EXPECT_EQ(text.value("yolo_edge_zone_occupancy", kDoor), 1);
  EXPECT_EQ(text.value("yolo_edge_active_tracks", kMain), 2);
  EXPECT_EQ(text.value("yolo_edge_object_events_total", {{"camera", "main"}, {"type", "cross"}}),
            1);
  EXPECT_EQ(text.value("yolo_edge_object_events_total", {{"camera", "main"}, {"type", "enter"}}),
            1);
  EXPECT_EQ(text.families().at("yolo_edge_line_crossings_total").type, "counter");
  EXPECT_EQ(text.families().at("yolo_edge_zone_occupancy").type, "gauge");

  // The same scene again (frames without a change): nothing counted twice; tracks follow.
  const auto same = scene(5, 1, 2, 0, t0);
  m.publish(tracked(same, 1, {tracking::ObjectEventKind::kCross}));
  m.publish(tracked(same, 0, {tracking::ObjectEventKind::kCross}));
  text = rendered(m);
  EXPECT_EQ(text.value("yolo_edge_line_crossings_total", kRoadIn), 5);
  EXPECT_EQ(text.value("yolo_edge_zone_occupancy", kDoor), 0);
  EXPECT_EQ(text.value("yolo_edge_active_tracks", kMain), 0);
  EXPECT_EQ(text.value("yolo_edge_object_events_total", {{"camera", "main"}, {"type", "cross"}}),
            3);
}

TEST(MetricsOutput, ACountsResetNeverMakesTheCountersGoBack) {
  MetricsOutput m;
  const auto t0 = std::chrono::system_clock::now();
  m.publish(tracked(scene(40, 10, 7, 0, t0), 0));
  // The road's and door's counts reset (the API, the CLI): they start again, with a new "since".
  const auto t1 = t0 + std::chrono::hours(1);
  m.publish(tracked(scene(0, 0, 0, 0, t1), 0));
  PromText text = rendered(m);
  EXPECT_EQ(text.value("yolo_edge_line_crossings_total", kRoadIn), 40);
  EXPECT_EQ(text.value("yolo_edge_zone_entries_total", kDoorPeople), 7);
  // Counted again after the reset: added on top.
  m.publish(tracked(scene(2, 1, 1, 1, t1), 1));
  text = rendered(m);
  EXPECT_EQ(text.value("yolo_edge_line_crossings_total", kRoadIn), 40 + 2);
  EXPECT_EQ(text.value("yolo_edge_line_crossings_total", kRoadOut), 10 + 1);
  EXPECT_EQ(text.value("yolo_edge_zone_entries_total", kDoorPeople), 7 + 1);
  // A reset seen only after new crossings (same "since" never goes with a smaller total, but a
  // total that falls is a restart all the same).
  m.publish(tracked(scene(1, 1, 1, 0, t1), 0));
  text = rendered(m);
  EXPECT_EQ(text.value("yolo_edge_line_crossings_total", kRoadIn), 40 + 2 + 1);
}

TEST(MetricsOutput, AZoneRemovedOrTrackingTurnedOffLosesItsGauges) {
  MetricsOutput m;
  const auto t0 = std::chrono::system_clock::now();
  m.publish(tracked(scene(1, 0, 1, 1, t0), 1));
  auto without_door = std::make_shared<SceneState>(*scene(1, 0, 1, 0, t0));
  without_door->zones.clear();
  without_door->occupancy.clear();
  m.publish(tracked(without_door, 1));
  PromText text = rendered(m);
  EXPECT_FALSE(text.value("yolo_edge_zone_occupancy", kDoor));
  EXPECT_EQ(text.value("yolo_edge_active_tracks", kMain), 1);
  // Counters stay, as Prometheus expects of them.
  EXPECT_EQ(text.value("yolo_edge_zone_entries_total", kDoorPeople), 1);
  m.publish(frame(model("yolo11n_320_fp32", "fp32")));
  text = rendered(m);
  EXPECT_FALSE(text.value("yolo_edge_active_tracks", kMain));
  EXPECT_EQ(text.value("yolo_edge_line_crossings_total", kRoadIn), 1);
}

TEST(MetricsOutput, PromtoolFindsNoProblemInTheTrackingSeries) {
  if (!have_promtool()) {
    GTEST_SKIP() << "promtool not found (Debian package prometheus): the strict parser checked "
                    "the format in the tests above";
  }
  MetricsOutput m;
  feed(m);
  m.publish(tracked(scene(3, 1, 2, 1, std::chrono::system_clock::now()), 2,
                    {tracking::ObjectEventKind::kCross}));
  test::TempFolder folder;
  const fs::path file = folder.write("metrics.txt", m.render());
  const auto r = test::run_process({"sh", "-c", "promtool check metrics < \"$0\"", file.string()});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(r.out + r.err, "") << "promtool lint findings";
}

TEST(MetricsOutput, PromtoolAcceptsTheScrapeConfigExample) {
  if (!have_promtool()) GTEST_SKIP() << "promtool not found (Debian package prometheus)";
  const fs::path config = yolo::test::source_dir() / "docs" / "prometheus.yml";
  const auto r = test::run_process({"promtool", "check", "config", config.string()});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
}

// --- The fleet dashboard ---------------------------------------------------------------------

// One series selector of a PromQL expression: its metric name and the label names it matches on.
struct Selector {
  std::string metric;
  std::set<std::string> labels;
};

bool identifier_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}

bool identifier_char(char c) {
  return identifier_start(c) || (c >= '0' && c <= '9');
}

// The series selectors of a PromQL expression as Grafana holds it ($variables allowed). Enough
// PromQL for dashboards: functions, aggregations with by/without, binary operators and
// matching, ranges, strings and numbers; a selector without a metric name fails the test (it
// cannot be checked).
std::vector<Selector> selectors(const std::string& expr) {
  static const std::set<std::string> kKeywords = {
      "sum",   "min",          "max",        "avg",         "group",    "stddev", "stdvar",
      "count", "count_values", "bottomk",    "topk",        "quantile", "by",     "without",
      "on",    "ignoring",     "group_left", "group_right", "and",      "or",     "unless",
      "bool",  "offset",       "atan2",      "inf",         "nan",      "Inf",    "NaN"};
  static const std::set<std::string> kGroupings = {"by",       "without",    "on",
                                                   "ignoring", "group_left", "group_right"};
  std::vector<Selector> found;
  std::size_t i = 0;
  const auto skip_blanks = [&] {
    while (i < expr.size() && std::isspace(static_cast<unsigned char>(expr[i]))) ++i;
  };
  const auto skip_string = [&] {
    const char quote = expr[i++];
    while (i < expr.size() && expr[i] != quote) i += expr[i] == '\\' && quote != '`' ? 2 : 1;
    ++i;
  };
  const auto skip_past = [&](char close) {
    while (i < expr.size() && expr[i] != close) ++i;
    ++i;
  };
  // The label names of a {...} matcher list at i.
  const auto matchers = [&] {
    std::set<std::string> names;
    ++i;
    while (i < expr.size() && expr[i] != '}') {
      skip_blanks();
      const std::size_t start = i;
      while (i < expr.size() && identifier_char(expr[i])) ++i;
      if (i > start) names.insert(expr.substr(start, i - start));
      while (i < expr.size() && expr[i] != ',' && expr[i] != '}') {
        if (expr[i] == '"' || expr[i] == '\'' || expr[i] == '`') {
          skip_string();
        } else {
          ++i;
        }
      }
      if (i < expr.size() && expr[i] == ',') ++i;
    }
    ++i;
    return names;
  };
  while (i < expr.size()) {
    const char c = expr[i];
    if (c == '"' || c == '\'' || c == '`') {
      skip_string();
    } else if (c == '[') {
      skip_past(']');
    } else if (c == '$') {
      ++i;
      if (i < expr.size() && expr[i] == '{') {
        skip_past('}');
      } else {
        while (i < expr.size() && identifier_char(expr[i])) ++i;
      }
    } else if (c == '{') {
      ADD_FAILURE() << "a selector without a metric name in: " << expr;
      matchers();
    } else if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      while (i < expr.size() &&
             (std::isalnum(static_cast<unsigned char>(expr[i])) || expr[i] == '.')) {
        ++i;
      }
    } else if (identifier_start(c)) {
      const std::size_t start = i;
      while (i < expr.size() && identifier_char(expr[i])) ++i;
      const std::string word = expr.substr(start, i - start);
      skip_blanks();
      const bool call = i < expr.size() && expr[i] == '(';
      if (kGroupings.contains(word)) {
        if (call) skip_past(')');
      } else if (!kKeywords.contains(word) && !call) {
        Selector s{word, {}};
        if (i < expr.size() && expr[i] == '{') s.labels = matchers();
        found.push_back(std::move(s));
      }
    } else {
      ++i;
    }
  }
  return found;
}

TEST(MetricsOutput, TheSelectorReaderFindsMetricsAndTheirLabels) {
  const auto s = selectors(
      R"(histogram_quantile(0.9, sum by (instance, le) (rate(a_bucket{stage="x",job=~"$job"}[$__rate_interval]))) / on(instance) group_left count(b{c!~"y,}z"} offset 5m) and c)");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].metric, "a_bucket");
  EXPECT_EQ(s[0].labels, (std::set<std::string>{"stage", "job"}));
  EXPECT_EQ(s[1].metric, "b");
  EXPECT_EQ(s[1].labels, std::set<std::string>{"c"});
  EXPECT_EQ(s[2].metric, "c");
}

// Every PromQL expression of the dashboard: its panels' "expr" and its variables' queries
// (label_values(SELECTOR, LABEL) is read as SELECTOR).
void expressions(const json& j, std::vector<std::string>& out) {
  if (j.is_object()) {
    for (const auto& [key, value] : j.items()) {
      if (key == "expr" && value.is_string()) out.push_back(value.get<std::string>());
      expressions(value, out);
    }
  } else if (j.is_array()) {
    for (const auto& value : j) expressions(value, out);
  }
}

std::vector<std::string> variable_queries(const json& dashboard) {
  std::vector<std::string> out;
  for (const auto& v : dashboard.at("templating").at("list")) {
    if (v.at("type") != "query") continue;
    const json& q = v.at("query");
    std::string text = q.is_string() ? q.get<std::string>() : q.at("query").get<std::string>();
    const std::string prefix = "label_values(";
    EXPECT_EQ(text.rfind(prefix, 0), 0u) << text;
    const std::size_t comma = text.rfind(',');
    EXPECT_NE(comma, std::string::npos) << "label_values without a metric: " << text;
    out.push_back(text.substr(prefix.size(), comma - prefix.size()));
  }
  return out;
}

TEST(MetricsOutput, TheDashboardAsksOnlyForSeriesTheDaemonServes) {
  const fs::path path = yolo::test::source_dir() / "docs" / "grafana" / "yolo-edge.json";
  std::ifstream in(path);
  ASSERT_TRUE(in) << "cannot read " << path;
  const json dashboard = json::parse(in);
  EXPECT_GE(dashboard.at("schemaVersion").get<int>(), 36);
  std::set<std::string> variables;
  for (const auto& v : dashboard.at("templating").at("list")) variables.insert(v.at("name"));
  EXPECT_TRUE(variables.contains("instance"));
  EXPECT_TRUE(variables.contains("job"));

  MetricsOutput m;
  feed(m);
  const PromText text = rendered(m);
  // Labels of each sample name, plus the two Prometheus adds to every series it scrapes.
  std::map<std::string, std::set<std::string>> labels;
  for (const auto& name : text.sample_names()) {
    labels[name] = {"instance", "job"};
    for (const auto& s : text.samples(name)) {
      for (const auto& [label, value] : s.labels) labels[name].insert(label);
    }
  }

  std::vector<std::string> exprs;
  expressions(dashboard.at("panels"), exprs);
  EXPECT_GE(exprs.size(), 20u);
  const std::vector<std::string> queries = variable_queries(dashboard);
  EXPECT_EQ(queries.size(), 2u);
  exprs.insert(exprs.end(), queries.begin(), queries.end());

  std::set<std::string> used;
  for (const auto& expr : exprs) {
    SCOPED_TRACE(expr);
    const auto found = selectors(expr);
    EXPECT_FALSE(found.empty());
    for (const auto& s : found) {
      used.insert(s.metric);
      ASSERT_TRUE(labels.contains(s.metric)) << s.metric << " is not served";
      for (const auto& label : s.labels) {
        EXPECT_TRUE(labels.at(s.metric).contains(label)) << s.metric << " has no label " << label;
      }
      // Each per-device panel can be narrowed to the devices picked.
      if (!expr.starts_with("yolo_edge_build_info")) {
        EXPECT_TRUE(s.labels.contains("instance")) << s.metric << " ignores $instance";
      }
    }
  }
  // The panels the fleet view promises.
  for (const std::string metric :
       {"yolo_edge_fps", "yolo_edge_stage_latency_seconds_bucket", "yolo_edge_temperature_celsius",
        "yolo_edge_throttle_active", "yolo_edge_power_watts", "yolo_edge_energy_joules_total",
        "yolo_edge_model_info"}) {
    EXPECT_TRUE(used.contains(metric)) << "no panel shows " << metric;
  }
}

}  // namespace
}  // namespace yolo::daemon
