// SPDX-License-Identifier: Apache-2.0
#pragma once

// The sections whose rows live in a file of their own (config/sections/NAME.cpp): each gives its
// SectionSpec and adds its rows. schema.cpp lists them once (kOwnFileSections); adding a section
// is its file, its struct in config.h's Config, and one line there.

#include <vector>

#include "config/schema.h"

namespace yolo::config::section_files {

struct SectionRows {
  SectionSpec (*spec)();
  void (*add_fields)(std::vector<FieldSpec>& rows);
};

SectionSpec tracking_spec();
void add_tracking_fields(std::vector<FieldSpec>& rows);
SectionSpec zones_spec();
void add_zones_fields(std::vector<FieldSpec>& rows);
SectionSpec lines_spec();
void add_lines_fields(std::vector<FieldSpec>& rows);
SectionSpec events_spec();
void add_events_fields(std::vector<FieldSpec>& rows);

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
