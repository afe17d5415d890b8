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

// The one kernel file a group reads (<proc>/stat, <proc>/self/statm), opened when the group is
// made; when it would not open, the group reads nothing and its inventory line says why.
class GroupFile {
 public:
  explicit GroupFile(const std::filesystem::path& path);

  // The open file, or nullptr.
  KernelFile* get() { return file_ ? &*file_ : nullptr; }
  // "WHAT (path)" among what was found, or "WHAT: why" among what is missing.
  void describe(Inventory& inventory, std::string_view what) const;

 private:
  std::optional<KernelFile> file_;
  // Why file_ would not open.
  std::string failure_;
};

}  // namespace yolo::telemetry
