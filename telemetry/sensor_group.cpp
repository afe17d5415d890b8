// SPDX-License-Identifier: Apache-2.0
#include "telemetry/sensor_group.h"

#include <system_error>

namespace yolo::telemetry {

GroupFile::GroupFile(const std::filesystem::path& path) {
  std::error_code error;
  file_ = KernelFile::open(path, error);
  if (!file_) failure_ = open_failure(path, error);
}

void GroupFile::describe(Inventory& inventory, std::string_view what) const {
  if (file_) {
    inventory.found.push_back(std::string(what) + " (" + file_->path().string() + ")");
  } else {
    inventory.missing.push_back(std::string(what) + ": " + failure_);
  }
}

}  // namespace yolo::telemetry
