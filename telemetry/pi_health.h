// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <memory>
#include <optional>

#include "telemetry/firmware.h"
#include "telemetry/kernel_file.h"
#include "telemetry/sensor_group.h"

namespace yolo::telemetry {

// What a Raspberry Pi says about its own state: the firmware's throttle word (get_throttled; else
// the kernel's copy in soc:firmware/get_throttled), the firmware's measured Arm clock
// (measure_clock arm) and the rpi_volt hwmon device's under-voltage alarm.
class PiHealth : public SensorGroup {
 public:
  // `firmware` may be null (not a Pi, or /dev/vcio not openable).
  PiHealth(const std::filesystem::path& sysfs_root, std::shared_ptr<Firmware> firmware);

  void read(Sample& sample) override;
  void describe(Inventory& inventory) const override;

 private:
  std::optional<std::uint32_t> throttle_word();

  std::shared_ptr<Firmware> firmware_;
  // The firmware answered get_throttled / measure_clock arm when asked at start.
  bool firmware_throttle_ = false;
  bool firmware_clock_ = false;
  // The kernel's copy of the throttle word, read only when the firmware does not answer.
  std::optional<KernelFile> sysfs_throttle_;
  // rpi_volt's in0_lcrit_alarm.
  std::optional<KernelFile> volt_alarm_;
};

}  // namespace yolo::telemetry
