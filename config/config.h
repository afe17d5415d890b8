#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace yolo::config {

// The typed settings the daemon runs with. Defaults, allowed values and descriptions live in one
// table, config/schema.cpp: a default-constructed Config holds the defaults from there, and
// load_config() (config/config_loader.h) fills it from a validated YAML file. Enum members follow
// the order of the allowed values in that table.

enum class Precision { kFp32, kInt8 };
enum class Quantize { kOff, kAuto };
enum class Decoder { kAuto, kYolov8, kEnd2end, kYolov5 };
enum class ThreadMode { kFixed, kAdaptive, kEfficiency };
enum class LogLevel { kDebug, kInfo, kWarning, kError };

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
  int imgsz{};
  std::filesystem::path labels;
  Decoder decoder{};

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
  std::string token;
  double max_fps{};
  int jpeg_quality{};
  int max_viewers{};

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
  FileConfig config;

  bool operator==(const Config&) const = default;
};

}  // namespace yolo::config
