// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>

namespace yolo::config {

// Device sensors. Rows and rules: config/sections/telemetry.cpp.
struct TelemetryConfig {
  double interval_s{};
  std::filesystem::path sysfs_root;

  bool operator==(const TelemetryConfig&) const = default;
};

}  // namespace yolo::config
