// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>
#include <string_view>

#include "telemetry/sensor_group.h"

namespace yolo::telemetry {

// This process's resident memory (<proc>/self/statm, in pages).
class ProcessRss : public FileSensorGroup {
 public:
  explicit ProcessRss(const std::filesystem::path& proc_root);

 private:
  void parse(std::string_view statm, Sample& sample) override;

  std::int64_t page_bytes_;
};

}  // namespace yolo::telemetry
