// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string_view>
#include <vector>

#include "config/sections/cameras.h"
#include "config/sections/checks.h"
#include "config/sections/config.h"
#include "config/sections/detect.h"
#include "config/sections/events.h"
#include "config/sections/gpio.h"
#include "config/sections/http.h"
#include "config/sections/lines.h"
#include "config/sections/logging.h"
#include "config/sections/model.h"
#include "config/sections/motion.h"
#include "config/sections/mqtt.h"
#include "config/sections/source.h"
#include "config/sections/telemetry.h"
#include "config/sections/threads.h"
#include "config/sections/tracking.h"
#include "config/sections/webhook.h"
#include "config/sections/zones.h"

namespace yolo::config {

// The typed settings the daemon runs with, one struct per section (config/sections/NAME.h).
// Defaults, allowed values and descriptions live in the schema's rows, each section's in
// config/sections/NAME.cpp: a default-constructed Config holds the defaults from there, and
// load_config() (config/config_loader.h) fills it from a validated YAML file. Enum members follow
// the order of the allowed values in their rows.

// The one camera of a config without cameras: (its source is the source section).
inline constexpr std::string_view kMainCamera = "main";

struct Config {
  // Every field at its schema default.
  Config();

  SourceConfig source;
  std::vector<CameraConfig> cameras;
  MotionConfig motion;
  std::vector<MotionMaskConfig> motion_masks;
  ModelConfig model;
  ChecksConfig checks;
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

// The cameras the daemon runs: cameras: as written, or without it one camera named main whose
// source is the source section (a config of one camera, as it always was).
std::vector<CameraConfig> camera_list(const Config& config);

// Whether a camera's frames are detected where motion is: its motion key, or the motion section.
bool motion_enabled(const Config& config, const CameraConfig& camera);

}  // namespace yolo::config
