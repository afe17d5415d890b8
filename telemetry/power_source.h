// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <utility>

namespace yolo::telemetry {

// What a power source measured at one sample.
struct PowerMeasurement {
  double watts = 0;
  // Energy the source counted since its previous measurement (RAPL); empty for sources that give
  // only power, whose energy is integrated over time.
  std::optional<double> energy_j;
};

// One way of measuring power: an hwmon sensor, the Pi 5 PMIC, a RAPL domain.
class PowerSource {
 public:
  explicit PowerSource(std::string label) : label_(std::move(label)) {}
  virtual ~PowerSource() = default;

  // "ina219 (1-0040)", "pmic", "rapl package-0": the key of its reading in the field log.
  const std::string& label() const { return label_; }
  // The measurement at `now`, or nullopt when it cannot be read this time (or, for a counter, on
  // the first read, which has nothing to compare with).
  virtual std::optional<PowerMeasurement> read(std::chrono::steady_clock::time_point now) = 0;

 private:
  std::string label_;
};

}  // namespace yolo::telemetry
