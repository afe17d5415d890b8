// SPDX-License-Identifier: Apache-2.0
// The telemetry section: device sensors.
#include <filesystem>

#include "config/schema_rows.h"
#include "config/sections/sections.h"

namespace yolo::config::section_files {

using namespace rows;

SectionSpec telemetry_spec() {
  return {"telemetry", "Device sensors: temperature, clock, throttling, power."};
}

void add_telemetry_fields(std::vector<FieldSpec>& t) {
  const SectionAdder<TelemetryConfig> add{t, &Config::telemetry};
  add("interval_s", &TelemetryConfig::interval_s, 1.0, {.min = 0.1, .max = 60},
      "Seconds between two sensor samples.");
  add("sysfs_root", &TelemetryConfig::sysfs_root, "/sys", {.rule = require_text},
      "Folder read in place of /sys (thermal, cpufreq, hwmon, powercap); tests point it at a fake "
      "tree.");
}

void check_telemetry_files(const TelemetryConfig& t, Problems& problems) {
  if (problems.usable("telemetry.sysfs_root") && !std::filesystem::is_directory(t.sysfs_root)) {
    problems.add(
        "telemetry.sysfs_root", problems.written_at("telemetry.sysfs_root"),
        "no such folder '" + t.sysfs_root.string() + "': use /sys, or a folder laid out like it");
  }
}

}  // namespace yolo::config::section_files
