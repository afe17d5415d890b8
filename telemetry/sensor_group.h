// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "telemetry/inventory.h"
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

}  // namespace yolo::telemetry
