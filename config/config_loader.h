#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "config/config.h"
#include "config/config_error.h"

namespace yolo::config {

struct LoadOptions {
  // Also check what the settings point at: model.path is set and, like model.int8_path and
  // model.labels, exists; a /dev/videoN (or index N) or local file source.uri exists;
  // telemetry.sysfs_root is a folder; an enabled gpio.chip exists. The daemon's start and reload
  // keep this on; tests of the schema alone and tools that only show a config turn it off.
  bool check_files = true;
};

// Reads and validates a YAML config file. The whole file is checked before anything is returned:
// on any problem a ConfigError lists them all, one per line, each with the file, key path, line and
// column and what to do; nothing of the file is applied. Keys left out keep their defaults (see
// config/yolo-edge.yaml). Relative paths (model.path, model.int8_path, model.labels,
// telemetry.sysfs_root, logging.dir, and a source.uri naming a local file or folder) are made
// absolute against the folder of `file`.
Config load_config(const std::filesystem::path& file, const LoadOptions& options = {});

// The same on text already in memory; `name` is the file name used in messages, and relative
// paths resolve against its folder (the current folder when it has none).
Config parse_config(std::string_view text, std::string name, const LoadOptions& options = {});

}  // namespace yolo::config
