// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>

#include "telemetry/sensor_group.h"

namespace yolo::telemetry {

// This process's resident memory (<proc>/self/statm, in pages).
class ProcessRss : public SensorGroup {
 public:
  explicit ProcessRss(const std::filesystem::path& proc_root);

  void read(Sample& sample) override;
  void describe(Inventory& inventory) const override;

 private:
  GroupFile statm_;
  std::int64_t page_bytes_;
};

}  // namespace yolo::telemetry
