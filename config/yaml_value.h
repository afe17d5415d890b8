// SPDX-License-Identifier: Apache-2.0
#pragma once

// YAML nodes into the schema's values (config/schema.h), for the loader. Internal to config/.

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "config/problems.h"
#include "config/schema.h"

namespace yolo::config {

// yaml-cpp marks are 0-based, and -1 when the node has no position.
Where where(const YAML::Mark& mark);

// A whole number or a finite number as YAML writes it (a leading + allowed); nullopt otherwise.
std::optional<std::int64_t> parse_whole(std::string_view s);
std::optional<double> parse_number(std::string_view s);

// The value `node` gives the field, of the field's type: nullopt after reporting to `problems`
// what is wrong. A list's items and a record's members are checked one by one where they are
// written; the value as a whole is left to check_value. `key` names it in messages: the field's
// path, or "gpio.alerts[0].line" for a member.
std::optional<Value> read_value(const FieldSpec& field, const std::string& key,
                                const YAML::Node& node, Where at, Problems& problems);

}  // namespace yolo::config
