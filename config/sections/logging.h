// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>

namespace yolo::config {

// logging.level, in the order of its row's choices.
enum class LogLevel { kDebug, kInfo, kWarning, kError };

// Field logs (JSON lines) and daemon messages. Rows and rules: config/sections/logging.cpp.
struct LoggingConfig {
  std::filesystem::path dir;
  double interval_s{};
  std::int64_t max_bytes{};
  int max_files{};
  LogLevel level{};

  bool operator==(const LoggingConfig&) const = default;
};

}  // namespace yolo::config
