// SPDX-License-Identifier: Apache-2.0
#pragma once

// Every section of the config lives in config/sections/: NAME.h holds its struct (plain, so that
// tracking/ and daemon/ read it without linking the schema), NAME.cpp its SectionSpec, its rows
// (defaults, ranges, descriptions, rules of one value) and its rules across its own keys and on
// the files they name. schema.cpp lists the sections once, in the shipped file's order
// (kSections). Adding a section: NAME.h and NAME.cpp, its two declarations below, its line in
// kSections, and its member and include in Config (config/config.h); rules beyond its rows are
// declared below too and called from config_loader.cpp. docs/adding-a-section.md says more.

#include <string>
#include <string_view>
#include <vector>

#include "config/problems.h"
#include "config/schema.h"
#include "config/schema_rows.h"

namespace yolo::config::section_files {

// One line of kSections.
struct SectionRows {
  SectionSpec (*spec)();
  void (*add_fields)(std::vector<FieldSpec>& rows);
};

SectionSpec source_spec();
void add_source_fields(std::vector<FieldSpec>& rows);
// The source's rows, also each camera's.
std::vector<rows::Member<SourceConfig>> source_members();
SectionSpec cameras_spec();
void add_cameras_fields(std::vector<FieldSpec>& rows);
SectionSpec motion_spec();
void add_motion_fields(std::vector<FieldSpec>& rows);
SectionSpec motion_masks_spec();
void add_motion_masks_fields(std::vector<FieldSpec>& rows);
SectionSpec model_spec();
void add_model_fields(std::vector<FieldSpec>& rows);
SectionSpec checks_spec();
void add_checks_fields(std::vector<FieldSpec>& rows);
SectionSpec detect_spec();
void add_detect_fields(std::vector<FieldSpec>& rows);
SectionSpec threads_spec();
void add_threads_fields(std::vector<FieldSpec>& rows);
SectionSpec telemetry_spec();
void add_telemetry_fields(std::vector<FieldSpec>& rows);
SectionSpec logging_spec();
void add_logging_fields(std::vector<FieldSpec>& rows);
SectionSpec http_spec();
void add_http_fields(std::vector<FieldSpec>& rows);
SectionSpec mqtt_spec();
void add_mqtt_fields(std::vector<FieldSpec>& rows);
SectionSpec gpio_spec();
void add_gpio_fields(std::vector<FieldSpec>& rows);
SectionSpec webhook_spec();
void add_webhook_fields(std::vector<FieldSpec>& rows);
SectionSpec tracking_spec();
void add_tracking_fields(std::vector<FieldSpec>& rows);
SectionSpec zones_spec();
void add_zones_fields(std::vector<FieldSpec>& rows);
SectionSpec lines_spec();
void add_lines_fields(std::vector<FieldSpec>& rows);
SectionSpec events_spec();
void add_events_fields(std::vector<FieldSpec>& rows);
SectionSpec config_spec();
void add_config_fields(std::vector<FieldSpec>& rows);

// The rules of a section beyond its rows: keys that must agree, and files the keys name
// (check_*_files, only with LoadOptions::check_files). The loader runs them in its order
// (config_loader.cpp), each reporting to `problems` and skipping a key that is not usable.
void check_model(const ModelConfig& model, Problems& problems, const LoadOptions& options);
void check_model_files(const ModelConfig& model, Problems& problems);
// Also makes the uri (at `key`: source.uri, cameras[i].uri) what the capture code will open
// (LoadOptions::check_source).
void check_source(SourceConfig& source, const std::string& key, Problems& problems,
                  const LoadOptions& options);
// Camera names unique, detect_fps within the camera's fps, and no source section beside cameras.
void check_cameras(Config& config, Problems& problems);
void check_telemetry_files(const TelemetryConfig& telemetry, Problems& problems);
void check_logging_files(const LoggingConfig& logging, Problems& problems);
void check_http(const HttpConfig& http, Problems& problems);
void check_http_files(const HttpConfig& http, Problems& problems);
void check_mqtt(const MqttConfig& mqtt, Problems& problems);
void check_mqtt_files(const MqttConfig& mqtt, Problems& problems);
void check_gpio(const GpioConfig& gpio, Problems& problems);
void check_tracking(const TrackingConfig& tracking, Problems& problems);
void check_events(const EventsConfig& events, Problems& problems);
// A line with a length, and an in side it has; `key` is "lines[i]".
void check_line(const LineConfig& line, const std::string& key, Problems& problems);
// Names unique per camera among zones and lines, each on a camera there is, and each line
// checked. A zone or line whose camera is not written is on the only camera, when there is one.
void check_places(std::vector<ZoneConfig>& zones, std::vector<LineConfig>& lines,
                  const std::vector<CameraConfig>& cameras, Problems& problems);

// An item's camera (`item`.camera: zones[i], motion_masks[i]) left out is the only camera; one
// written must be a camera there is.
void check_camera(std::string& camera, const std::string& item,
                  const std::vector<CameraConfig>& cameras, Problems& problems);
// Each mask on a camera there is.
void check_motion_masks(std::vector<MotionMaskConfig>& masks,
                        const std::vector<CameraConfig>& cameras, Problems& problems);
// The single output line of earlier versions (gpio.enabled, line, active_low, hold_s; they never
// drove a line) is one rule of gpio.alerts now: one problem says what to write instead, built
// from the values written. The loader keeps such keys as it reads the gpio section.
struct OldGpioKey {
  std::string name;
  Where at;
  // The scalar written; "" for anything else.
  std::string value;
};
bool is_old_gpio_key(std::string_view name);
void report_old_gpio_keys(const std::vector<OldGpioKey>& keys, Problems& problems);

}  // namespace yolo::config::section_files
