// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "config/config_error.h"

namespace yolo::config {

// What the capture code makes of a source.uri: the uri as it will be opened (relative paths
// made absolute against the config's folder), an error when it can never open as written, and a
// warning when it cannot now but may later (a camera not plugged in yet).
struct SourceCheck {
  std::string uri;
  std::string error;
  std::string warning;
};

// A setting given from elsewhere than the file (the daemon's API, a GPIO button): it replaces the
// file's value and is checked like it; messages about it say where it came from.
struct Override {
  std::string key;     // "model.precision"
  std::string value;   // as it would be written in YAML: "int8"
  std::string origin;  // "through the HTTP API"
};

struct LoadOptions {
  // Also check what the settings point at: model.path is set and, like model.int8_path and
  // model.labels, exists; telemetry.sysfs_root is a folder; and source.uri through check_source.
  // The daemon's start and reload keep this on; tests of the schema alone and tools that only
  // show a config turn it off.
  bool check_files = true;
  // The capture code's own check (vision::check_source), so that what a config accepts as a
  // source is exactly what the daemon can open. Without it source.uri is kept as written.
  std::function<SourceCheck(const std::string& uri, const std::filesystem::path& base)>
      check_source{};
  // Whether a model file is static INT8 (QDQ), read by the runtime (runtime::file_precision), so
  // that a model.path naming one needs no model.int8_path for precision int8 or auto. Without it
  // model.path is taken for an FP32 file.
  std::function<bool(const std::filesystem::path& model)> static_int8{};
  // The class names of a model file (nullopt when they cannot be read), which the class names of
  // zones and lines must be among; asked with model.path, even an empty one (a caller that runs
  // another model, yolo-edge track --model, answers for that), and not when model.labels names
  // the classes. Without it those names are not checked.
  std::function<std::optional<std::vector<std::string>>(const std::filesystem::path& model)>
      class_names{};
  // Receives the warnings of a valid file (nothing when null).
  std::vector<ConfigProblem>* warnings = nullptr;
  // Applied over the file, in order.
  std::vector<Override> overrides{};
};

// Reads and validates a YAML config file. The whole file is checked before anything is returned:
// on any problem a ConfigError lists them all, one per line, each with the file, key path, line and
// column and what to do; nothing of the file is applied. Keys left out keep their defaults (see
// config/yolo-edge.yaml). Relative paths (model.path, model.int8_path, model.labels,
// telemetry.sysfs_root, logging.dir, and, through check_source, a source.uri naming a local file
// or folder) are made absolute against the folder of `file`.
Config load_config(const std::filesystem::path& file, const LoadOptions& options = {});

// The same on text already in memory; `name` is the file name used in messages, and relative
// paths resolve against its folder (the current folder when it has none).
Config parse_config(std::string_view text, std::string name, const LoadOptions& options = {});

}  // namespace yolo::config
