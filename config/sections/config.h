// SPDX-License-Identifier: Apache-2.0
#pragma once

namespace yolo::config {

// How the daemon follows the config file itself. Rows and rules: config/sections/config.cpp.
struct FileConfig {
  bool watch{};

  bool operator==(const FileConfig&) const = default;
};

}  // namespace yolo::config
