// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/sections/events.h"
#include "config/sections/lines.h"
#include "config/sections/tracking.h"
#include "config/sections/zones.h"
#include "runtime/engine/input_size.h"
#include "runtime/engine/precision.h"

namespace yolo::config {

// The typed settings the daemon runs with. Defaults, allowed values and descriptions live in one
// table, config/schema.cpp: a default-constructed Config holds the defaults from there, and
// load_config() (config/config_loader.h) fills it from a validated YAML file. Enum members follow
// the order of the allowed values in that table.

// The cameras a zone or line may name (their `camera:` key). One today: the daemon's source.
inline constexpr std::string_view kMainCamera = "main";

// What model.precision asks for: the engine's precisions, or auto (chosen by measurement).
enum class Precision { kFile, kFp32, kInt8, kAuto };
// Its names, in the enum's order: the engine's three spelled as the engine spells them, then auto.
inline constexpr std::array<std::string_view, 4> kPrecisionNames{
    runtime::kPrecisionNames[0], runtime::kPrecisionNames[1], runtime::kPrecisionNames[2], "auto"};
static_assert(static_cast<int>(Precision::kFile) == static_cast<int>(runtime::Precision::kFile) &&
              static_cast<int>(Precision::kFp32) == static_cast<int>(runtime::Precision::kFp32) &&
              static_cast<int>(Precision::kInt8) == static_cast<int>(runtime::Precision::kInt8));
// "file", "fp32", "int8", "auto".
constexpr const char* precision_name(Precision precision) {
  return kPrecisionNames[static_cast<std::size_t>(precision)].data();
}
enum class Quantize { kOff, kAuto };
enum class Decoder { kAuto, kYolov8, kEnd2end, kYolov5 };
enum class ThreadMode { kFixed, kAdaptive, kEfficiency };
// Its names, in the enum's order.
inline constexpr std::array<std::string_view, 3> kThreadModeNames{"fixed", "adaptive",
                                                                  "efficiency"};
constexpr const char* thread_mode_name(ThreadMode mode) {
  return kThreadModeNames[static_cast<std::size_t>(mode)].data();
}
enum class LogLevel { kDebug, kInfo, kWarning, kError };
enum class GpioBias { kPullUp, kPullDown, kDisabled, kAsIs };
enum class HttpAuth { kPassword, kNone };

// Where frames come from.
struct SourceConfig {
  std::string uri;
  bool loop{};
  bool realtime{};
  int width{};
  int height{};
  double fps{};
  double reconnect_s{};

  bool operator==(const SourceConfig&) const = default;
};

// Which network runs and how.
struct ModelConfig {
  std::filesystem::path path;
  std::filesystem::path int8_path;
  Precision precision{};
  Quantize quantize{};
  int calibration_frames{};
  // The runtime's own type (a value, no link to the runtime): 0 is kModel, 640 or [384, 640]
  // kFixed, auto kAuto without a frame size (the daemon adds the camera's).
  runtime::InputSize imgsz;
  std::filesystem::path labels;
  Decoder decoder{};
  double auto_min_map50{};

  bool operator==(const ModelConfig&) const = default;
};

// Which detections are kept.
struct DetectConfig {
  double conf{};
  double iou{};
  std::vector<int> classes;
  int max_detections{};
  bool agnostic_nms{};

  bool operator==(const DetectConfig&) const = default;
};

// How many inference threads, fixed or chosen by measurement.
struct ThreadsConfig {
  ThreadMode mode{};
  int count{};
  int max{};
  double margin{};

  bool operator==(const ThreadsConfig&) const = default;
};

// Device sensors.
struct TelemetryConfig {
  double interval_s{};
  std::filesystem::path sysfs_root;

  bool operator==(const TelemetryConfig&) const = default;
};

// Field logs (JSON lines) and daemon messages.
struct LoggingConfig {
  std::filesystem::path dir;
  double interval_s{};
  std::int64_t max_bytes{};
  int max_files{};
  LogLevel level{};

  bool operator==(const LoggingConfig&) const = default;
};

// The live view, the status API and the metrics.
struct HttpConfig {
  std::string listen;
  HttpAuth auth{};
  std::string password;
  std::string token;
  std::string metrics_allow;
  bool tls{};
  std::filesystem::path tls_cert;
  std::filesystem::path tls_key;
  double max_fps{};
  int jpeg_quality{};
  int max_viewers{};
  int max_clients{};
  int max_clients_per_address{};

  bool operator==(const HttpConfig&) const = default;
};

// Detections and status to an MQTT broker.
struct MqttConfig {
  bool enabled{};
  std::string host;
  int port{};
  std::string prefix;
  std::string username;
  std::string password;
  std::filesystem::path ca_file;
  double stats_interval_s{};
  double debounce_s{};
  bool homeassistant{};
  std::string discovery_prefix;

  bool operator==(const MqttConfig&) const = default;
};

// Each debounced detection event POSTed as JSON (docs/webhook.md); off while url is empty.
struct WebhookConfig {
  std::string url;
  double timeout_s{};
  int retries{};
  double backoff_s{};
  int queue{};
  double debounce_s{};

  bool operator==(const WebhookConfig&) const = default;
};

// One output line that is active while one of its classes is detected (a buzzer, a relay).
struct GpioAlertConfig {
  int line{};
  // Empty: GpioConfig::chip.
  std::string chip;
  // Empty: any class.
  std::vector<int> classes;
  double min_score{};
  int consecutive_frames{};
  int hold_ms{};
  bool active_low{};
  // A zone of the camera (zones[].name): active while a tracked object is in it (its occupancy
  // is above 0; the zone's classes apply, not classes and min_score). Empty: by detections.
  std::string zone;

  bool operator==(const GpioAlertConfig&) const = default;
};

// The status LED: heartbeat while frames flow, steady when the camera is lost, fast on errors.
struct GpioLedConfig {
  int line{};
  std::string chip;
  bool active_low{};

  bool operator==(const GpioLedConfig&) const = default;
};

// An input line whose press switches between FP32 and INT8.
struct GpioButtonConfig {
  int line{};
  std::string chip;
  bool active_low{};
  GpioBias bias{};
  int debounce_ms{};

  bool operator==(const GpioButtonConfig&) const = default;
};

// GPIO lines driven by what the daemon sees, and read from a button.
struct GpioConfig {
  // Chip of every line that names none: gpiochip0, /dev/gpiochip4 or a label (pinctrl-rp1).
  std::string chip;
  std::vector<GpioAlertConfig> alerts;
  std::optional<GpioLedConfig> status_led;
  std::optional<GpioButtonConfig> precision_button;

  bool operator==(const GpioConfig&) const = default;
};

// How the daemon follows the config file itself.
struct FileConfig {
  bool watch{};

  bool operator==(const FileConfig&) const = default;
};

struct Config {
  // Every field at its schema default.
  Config();

  SourceConfig source;
  ModelConfig model;
  DetectConfig detect;
  ThreadsConfig threads;
  TelemetryConfig telemetry;
  LoggingConfig logging;
  HttpConfig http;
  MqttConfig mqtt;
  GpioConfig gpio;
  WebhookConfig webhook;
  TrackingConfig tracking;
  std::vector<ZoneConfig> zones;
  std::vector<LineConfig> lines;
  EventsConfig events;
  // The YAML section `config:` (the file's own settings).
  FileConfig file;

  bool operator==(const Config&) const = default;
};

}  // namespace yolo::config
