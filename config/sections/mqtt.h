// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <string>

namespace yolo::config {

// Detections and status to an MQTT broker. Rows and rules: config/sections/mqtt.cpp.
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

}  // namespace yolo::config
