// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

namespace yolo::config {

// Where frames come from. Rows and rules: config/sections/source.cpp.
struct SourceConfig {
  std::string uri;
  bool loop{};
  bool realtime{};
  int width{};
  int height{};
  double fps{};
  double reconnect_s{};
  std::string fourcc{};

  bool operator==(const SourceConfig&) const = default;
};

}  // namespace yolo::config
