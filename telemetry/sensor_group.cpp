// SPDX-License-Identifier: Apache-2.0
#include "telemetry/sensor_group.h"

#include <system_error>
#include <utility>

namespace yolo::telemetry {

FileSensorGroup::FileSensorGroup(const std::filesystem::path& path, std::string what)
    : what_(std::move(what)) {
  std::error_code error;
  file_ = KernelFile::open(path, error);
  if (!file_) failure_ = open_failure(path, error);
}

void FileSensorGroup::read(Sample& sample) {
  if (!file_) return;
  if (const std::optional<std::string_view> text = file_->read()) parse(*text, sample);
}

void FileSensorGroup::describe(Inventory& inventory) const {
  if (file_) {
    inventory.found.push_back(what_ + " (" + file_->path().string() + ")");
  } else {
    inventory.missing.push_back(what_ + ": " + failure_);
  }
}

}  // namespace yolo::telemetry
