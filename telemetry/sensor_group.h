// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "telemetry/inventory.h"
#include "telemetry/kernel_file.h"
#include "telemetry/sample.h"

namespace yolo::telemetry {

// Sensors of one kind, found once when the sampler starts and read at every sample.
class SensorGroup {
 public:
  virtual ~SensorGroup() = default;
  // Fills this group's fields of `sample` (whose `mono` is set), leaving out what cannot be read
  // this time.
  virtual void read(Sample& sample) = 0;
  // Adds what this group found, or what it lacks and why.
  virtual void describe(Inventory& inventory) const = 0;
};

// A group that reads one kernel file (<proc>/stat, <proc>/self/statm), opened when the group is
// made: it parses the file's text at each sample; when the file would not open, the group reads
// nothing and its inventory line says why.
class FileSensorGroup : public SensorGroup {
 public:
  void read(Sample& sample) final;
  // "WHAT (path)" among what was found, or "WHAT: why" among what is missing.
  void describe(Inventory& inventory) const final;

 protected:
  FileSensorGroup(const std::filesystem::path& path, std::string what);
  // Fills `sample` from this read of the file.
  virtual void parse(std::string_view text, Sample& sample) = 0;

 private:
  std::optional<KernelFile> file_;
  // Why file_ would not open.
  std::string failure_;
  std::string what_;
};

}  // namespace yolo::telemetry
