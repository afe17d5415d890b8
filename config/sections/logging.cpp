// SPDX-License-Identifier: Apache-2.0
// The logging section: field logs and daemon messages.
#include <filesystem>
#include <string>
#include <utility>

#include "config/append.h"
#include "config/schema_rows.h"
#include "config/sections/sections.h"

namespace yolo::config::section_files {

using namespace rows;

SectionSpec logging_spec() {
  return {"logging",
          "Field logs (one JSON line per interval, rotated by size) and daemon messages."};
}

void add_logging_fields(std::vector<FieldSpec>& t) {
  const SectionAdder<LoggingConfig> add{t, &Config::logging};
  add("dir", &LoggingConfig::dir, "/var/log/yolo-edge", {.rule = require_text},
      "Folder of the field logs (JSON lines); created if missing.");
  add("interval_s", &LoggingConfig::interval_s, 10.0, {.min = 1, .max = 86400},
      "Seconds between two field-log lines.");
  add("max_bytes", &LoggingConfig::max_bytes, 10 * 1024 * 1024,
      {.min = 4096, .max = 1099511627776.0}, "Size in bytes at which the field log is rotated.");
  add("max_files", &LoggingConfig::max_files, 5, {.min = 1, .max = 1000},
      "Rotated field logs kept besides the current one.");
  add("level", &LoggingConfig::level, LogLevel::kInfo,
      {.choices = {"debug", "info", "warning", "error"}},
      "Least important daemon message written to the journal.");
}

void check_logging_files(const LoggingConfig& l, Problems& problems) {
  namespace fs = std::filesystem;
  if (problems.usable("logging.dir") && fs::exists(l.dir) && !fs::is_directory(l.dir)) {
    std::string message;
    append(message, {"'", l.dir.string(), "' exists but is not a folder: choose a folder path"});
    problems.add("logging.dir", problems.written_at("logging.dir"), std::move(message));
  }
}

}  // namespace yolo::config::section_files
