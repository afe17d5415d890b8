// SPDX-License-Identifier: Apache-2.0
#pragma once

// Every section of the config lives in config/sections/: NAME.h holds its struct (plain, so that
// tracking/ and daemon/ read it without linking the schema), NAME.cpp its SectionSpec, its rows
// (defaults, ranges, descriptions, rules of one value) and its rules across its own keys.
// schema.cpp lists the sections once, in file order (kSections). Adding a section: NAME.h and
// NAME.cpp, its two declarations below, its line in kSections, and its member (and include) in
// Config (config/config.h); docs/adding-a-section.md says more.

#include <vector>

#include "config/schema.h"

namespace yolo::config::section_files {

struct SectionRows {
  SectionSpec (*spec)();
  void (*add_fields)(std::vector<FieldSpec>& rows);
};

SectionSpec source_spec();
void add_source_fields(std::vector<FieldSpec>& rows);
SectionSpec model_spec();
void add_model_fields(std::vector<FieldSpec>& rows);
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

// Rules the zones and lines share.
// A place's name names MQTT topics and metric labels: letters, digits, _ and -, 1 to 64.
std::string place_name_rule(const Value& value);
// One of the cameras there are (config::kMainCamera today).
std::string camera_rule(const Value& value);
// The members zones and lines both have, described once.
FieldSpec name_member(std::string_view section, std::string_view what);
FieldSpec camera_member(std::string_view section);
FieldSpec classes_member(std::string_view section);
FieldSpec anchor_member(std::string_view section);

}  // namespace yolo::config::section_files
