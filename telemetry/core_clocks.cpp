// SPDX-License-Identifier: Apache-2.0
#include "telemetry/core_clocks.h"

#include <string>

namespace yolo::telemetry {

CoreClocks::CoreClocks(const std::filesystem::path& sysfs_root)
    : dir_(sysfs_root / "devices/system/cpu") {
  for (const auto& [cpu, dir] : numbered_entries(dir_, "cpu")) {
    if (auto file = KernelFile::open(dir / "cpufreq/scaling_cur_freq")) {
      cores_.push_back({cpu, std::move(*file)});
    }
  }
}

void CoreClocks::read(Sample& sample) {
  for (Core& core : cores_) {
    if (const auto khz = core.cur_freq.read_int()) {
      sample.clocks.push_back({core.cpu, static_cast<double>(*khz) / 1000.0});
    }
  }
}

void CoreClocks::describe(Inventory& inventory) const {
  if (cores_.empty()) {
    inventory.missing.push_back("core clocks: no cpufreq/scaling_cur_freq in " + dir_.string() +
                                "/cpuN (a VM, or a kernel without cpufreq)");
  } else {
    inventory.found.push_back(std::to_string(cores_.size()) +
                              (cores_.size() == 1 ? " core's clock" : " cores' clocks"));
  }
}

}  // namespace yolo::telemetry
