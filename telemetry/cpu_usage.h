// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

#include "telemetry/sensor_group.h"

namespace yolo::telemetry {

// Clock ticks since boot of one <proc>/stat "cpu" line: busy (all but idle and iowait) and total.
struct CpuTicks {
  std::uint64_t busy = 0;
  std::uint64_t total = 0;
};

// The share of each core, and of all, that was busy since the previous sample (<proc>/stat);
// nothing on the first sample, which has nothing to compare with.
class CpuUsage : public FileSensorGroup {
 public:
  explicit CpuUsage(const std::filesystem::path& proc_root);

 private:
  void parse(std::string_view stat, Sample& sample) override;

  // The previous sample: all cores, and each core by number (empty where a core was offline).
  std::optional<CpuTicks> last_all_;
  std::vector<std::optional<CpuTicks>> last_cores_;
};

}  // namespace yolo::telemetry
