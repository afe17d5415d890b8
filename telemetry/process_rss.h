// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "telemetry/kernel_file.h"
#include "telemetry/sensor_group.h"

namespace yolo::telemetry {

// This process's resident memory (<proc>/self/statm, in pages).
class ProcessRss : public SensorGroup {
 public:
  explicit ProcessRss(const std::filesystem::path& proc_root);

  void read(Sample& sample) override;
  void describe(Inventory& inventory) const override;

 private:
  std::optional<KernelFile> statm_;
  // Why statm_ would not open.
  std::string failure_;
  std::int64_t page_bytes_;
};

}  // namespace yolo::telemetry
