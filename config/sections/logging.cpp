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
  const SectionAdder<LoggingConfig> add{t, "logging", &Config::logging};
  using F = FieldType;
  add({.name = "dir",
       .type = F::kPath,
       .default_value = text("/var/log/yolo-edge"),
       .description = "Folder of the field logs (JSON lines); created if missing.",
       .rule = require_text},
      &LoggingConfig::dir);
  add({.name = "interval_s",
       .type = F::kFloat,
       .default_value = 10.0,
       .min = 1,
       .max = 86400,
       .description = "Seconds between two field-log lines."},
      &LoggingConfig::interval_s);
  add({.name = "max_bytes",
       .type = F::kInt,
       .default_value = whole(10 * 1024 * 1024),
       .min = 4096,
       .max = 1099511627776.0,
       .description = "Size in bytes at which the field log is rotated."},
      &LoggingConfig::max_bytes);
  add({.name = "max_files",
       .type = F::kInt,
       .default_value = whole(5),
       .min = 1,
       .max = 1000,
       .description = "Rotated field logs kept besides the current one."},
      &LoggingConfig::max_files);
  add({.name = "level",
       .type = F::kEnum,
       .default_value = text("info"),
       .choices = {"debug", "info", "warning", "error"},
       .description = "Least important daemon message written to the journal."},
      &LoggingConfig::level);
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
