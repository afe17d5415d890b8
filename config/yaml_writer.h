// SPDX-License-Identifier: Apache-2.0
#pragma once

// The schema's table (config/schema.h) written out as text: its documentation and YAML files.

#include <string>

#include "config/config.h"

namespace yolo::config {

// Every section and key with type, allowed values, default and description, for people
// (`yolo-edge config --describe`).
std::string describe_schema();

// The config as a YAML file that load_config() reads back to an equal Config; with comments,
// each section and key is preceded by its description.
std::string to_yaml(const Config& config, bool with_comments);

// The documented default file: to_yaml(Config{}, true) under a header. config/yolo-edge.yaml is
// exactly this text (a test checks it).
std::string default_config_yaml();

}  // namespace yolo::config
