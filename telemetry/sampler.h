// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "telemetry/firmware.h"
#include "telemetry/inventory.h"
#include "telemetry/sample.h"
#include "telemetry/sensor_group.h"

namespace yolo::telemetry {

struct SamplerOptions {
  // Read in place of /sys (config telemetry.sysfs_root).
  std::filesystem::path sysfs_root = "/sys";
  // Read in place of /proc; tests point it at a fake tree.
  std::filesystem::path proc_root = "/proc";
  // The Raspberry Pi firmware (open_vcio_firmware()), or null where there is none.
  std::shared_ptr<Firmware> firmware;
  // Why `firmware` is null, for the inventory.
  std::string firmware_missing_reason;
  // Time between two reads of the Pi 5 PMIC, which are slow (see pmic_power.cpp); the last value
  // is reused in between.
  std::chrono::steady_clock::duration pmic_period = std::chrono::seconds(10);
};

// Reads every sensor the device has, once per call. The sensors are found once, at construction,
// and their files kept open, so a sample is a handful of reads. A sensor that cannot be read
// leaves its field out; nothing stops sampling. Not thread-safe: the telemetry thread owns it.
class Sampler {
 public:
  explicit Sampler(SamplerOptions options);
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  // Everything, now.
  Sample sample();
  // Everything, stamped with the given times: power is integrated over `mono`, so tests can
  // drive time without sleeping. `mono` must not go back between calls.
  Sample sample_at(std::chrono::steady_clock::time_point mono,
                   std::chrono::system_clock::time_point wall);

  // What was found and what is missing and why, for the start-up log.
  const Inventory& inventory() const { return inventory_; }

 private:
  std::vector<std::unique_ptr<SensorGroup>> groups_;
  Inventory inventory_;
};

}  // namespace yolo::telemetry
