// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <vector>

#include "telemetry/kernel_file.h"
#include "telemetry/sensor_group.h"

namespace yolo::telemetry {

// Each core's clock as the kernel last set it
// (<sysfs>/devices/system/cpu/cpuN/cpufreq/scaling_cur_freq, kHz). On a Pi this misses firmware
// throttling; PiHealth reads the firmware's measured Arm clock beside it.
class CoreClocks : public SensorGroup {
 public:
  explicit CoreClocks(const std::filesystem::path& sysfs_root);

  void read(Sample& sample) override;
  void describe(Inventory& inventory) const override;

 private:
  struct Core {
    int cpu;
    KernelFile cur_freq;
  };

  std::filesystem::path dir_;
  std::vector<Core> cores_;
};

}  // namespace yolo::telemetry
