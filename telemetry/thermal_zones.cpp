// SPDX-License-Identifier: Apache-2.0
#include "telemetry/thermal_zones.h"

namespace yolo::telemetry {

ThermalZones::ThermalZones(const std::filesystem::path& sysfs_root)
    : dir_(sysfs_root / "class/thermal") {
  for (const auto& [number, dir] : numbered_entries(dir_, "thermal_zone")) {
    std::error_code error;
    std::optional<KernelFile> temp = KernelFile::open(dir / "temp", error);
    if (!temp) {
      unopened_.push_back(open_failure(dir / "temp", error));
      continue;
    }
    zones_.push_back(
        {dir.filename().string(), read_trimmed(dir / "type").value_or(""), std::move(*temp)});
  }
}

void ThermalZones::read(Sample& sample) {
  for (Zone& z : zones_) {
    // A zone whose sensor is not ready (some report EAGAIN or ENODATA) is left out this time.
    if (const auto millidegrees = z.temp.read_int()) {
      sample.thermal.push_back({z.zone, z.type, static_cast<double>(*millidegrees) / 1000.0});
    }
  }
}

void ThermalZones::describe(Inventory& inventory) const {
  for (const std::string& failure : unopened_)
    inventory.missing.push_back("thermal zone " + failure);
  if (zones_.empty()) {
    if (unopened_.empty()) inventory.missing.push_back("thermal zones: none in " + dir_.string());
    return;
  }
  std::string types;
  for (const Zone& z : zones_) {
    if (!types.empty()) types += ", ";
    types += z.type.empty() ? z.zone : z.type;
  }
  inventory.found.push_back(std::to_string(zones_.size()) +
                            (zones_.size() == 1 ? " thermal zone (" : " thermal zones (") + types +
                            ")");
}

}  // namespace yolo::telemetry
