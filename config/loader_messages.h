// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the loader (config_loader.cpp, yaml_value.cpp) says about a file it refuses: how a value
// looks, the nearest names of an unknown section or key, what a field expects. Internal to
// config/.
#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>
#include <vector>

#include "config/schema.h"

namespace yolo::config {

// How a node looks to a person, for "expected X, got Y".
std::string describe(const YAML::Node& node);

// The keys of a section, in table order.
std::vector<std::string_view> field_names(std::string_view section);

// "unknown section 'x'", with the name meant or the section the key belongs in, and the
// sections.
std::string unknown_section(const std::string& name);
// "unknown key 'x' in SECTION", with the name meant or the other section it belongs in, and the
// section's keys.
std::string unknown_key(const std::string& section, const std::string& name);
// "unknown key 'x' in KEY" of a record field, with the name meant and the record's keys.
std::string unknown_member(const FieldSpec& field, const std::string& key, const std::string& name);

// The required members of a record with a value each: "{line: 17}".
std::string example(const FieldSpec& field);
// What the field wants, with its article: "expected a number, got 'abc'".
std::string expected(const FieldSpec& field);

// A hint for the parse error at `line` (1-based): YAML forbids tabs in indentation, which
// yaml-cpp reports only as an "illegal map value".
std::string tab_hint(std::string_view text, int line);

}  // namespace yolo::config
