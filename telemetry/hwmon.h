// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace yolo::telemetry {

// An hwmon device, known by its driver's name: hwmonN numbers change between boots.
struct HwmonDevice {
  // <sysfs>/class/hwmon/hwmonN.
  std::filesystem::path dir;
  // The `name` file: "ina219", "ina3221", "rpi_volt", "coretemp".
  std::string name;
  // A name that survives reboots, for labels: the device it belongs to ("1-0040" for an I2C chip
  // at address 0x40 on bus 1), or hwmonN when it has no device link.
  std::string stable_id;
};

// All hwmon devices under <sysfs>/class/hwmon, in the order of their stable ids.
std::vector<HwmonDevice> find_hwmon_devices(const std::filesystem::path& sysfs_root);

}  // namespace yolo::telemetry
