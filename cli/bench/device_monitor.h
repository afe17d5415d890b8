// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

#include "telemetry/inventory.h"
#include "telemetry/sampler.h"

namespace yolo::cli {

// What the device said at one moment, as a benchmark reports it.
struct DeviceReading {
  // When it was read.
  std::chrono::steady_clock::time_point time;
  // The hottest thermal zone, in C.
  std::optional<double> temp_c;
  // The Pi firmware's measured Arm clock (it shows throttling), else the mean of the cores'
  // requested clocks, in MHz.
  std::optional<double> clock_mhz;
  // Whether the Pi firmware reports any throttling condition now.
  std::optional<bool> throttled;
  // Joules the preferred power source counted since the monitor started.
  std::optional<double> energy_j;
};

// The daemon's telemetry sampler, read by `yolo-edge bench` around each measurement. A thread
// samples once a second in between, so sources whose power is integrated over time (INA sensors,
// the Pi 5 PMIC) count the energy of the whole run, not only of its two ends.
class DeviceMonitor {
 public:
  // `sysfs_root` is read in place of /sys (tests point it at a fake tree).
  explicit DeviceMonitor(const std::filesystem::path& sysfs_root);
  ~DeviceMonitor();
  DeviceMonitor(const DeviceMonitor&) = delete;
  DeviceMonitor& operator=(const DeviceMonitor&) = delete;

  // A sample now.
  DeviceReading read();
  // The sensors found and those missing, with why.
  const telemetry::Inventory& inventory() const { return sampler_.inventory(); }

 private:
  std::mutex mutex_;
  telemetry::Sampler sampler_;
  std::jthread ticker_;
};

}  // namespace yolo::cli
