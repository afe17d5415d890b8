// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "telemetry/kernel_file.h"
#include "telemetry/sensor_group.h"

namespace yolo::telemetry {

// Every thermal zone (<sysfs>/class/thermal/thermal_zoneN: `temp` in millidegrees C, `type`).
class ThermalZones : public SensorGroup {
 public:
  explicit ThermalZones(const std::filesystem::path& sysfs_root);

  void read(Sample& sample) override;
  void describe(Inventory& inventory) const override;

 private:
  struct Zone {
    std::string zone;
    std::string type;
    KernelFile temp;
  };

  std::filesystem::path dir_;
  std::vector<Zone> zones_;
  // Zones whose temp file would not open, with why.
  std::vector<std::string> unopened_;
};

}  // namespace yolo::telemetry
