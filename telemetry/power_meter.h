// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "telemetry/firmware.h"
#include "telemetry/power_source.h"
#include "telemetry/sensor_group.h"

namespace yolo::telemetry {

// Every power source found (external INA sensors, the Pi 5 PMIC, RAPL domains), each reported,
// and the energy counted by the preferred one since the first sample: an external sensor measures
// what the board draws, over the PMIC (the board's rails, not wall power), over RAPL's package
// (the CPU only).
class PowerMeter : public SensorGroup {
 public:
  PowerMeter(const std::filesystem::path& sysfs_root, std::shared_ptr<Firmware> firmware,
             std::chrono::steady_clock::duration pmic_period);

  void read(Sample& sample) override;
  void describe(Inventory& inventory) const override;

 private:
  // Adds the preferred source's measurement to the energy count: a counter's own delta, or the
  // power integrated over time (trapezoid between two measurements).
  void count_energy(std::chrono::steady_clock::time_point now, const PowerMeasurement& m);

  // In order of preference.
  std::vector<std::unique_ptr<PowerSource>> sources_;
  // The index in `sources_` of the one power_w and energy_j come from.
  std::optional<std::size_t> preferred_;
  // Why RAPL domains were left out.
  std::string rapl_problem_;
  // Joules counted so far, and the previous power measurement for the trapezoid.
  double energy_j_ = 0;
  std::optional<std::pair<std::chrono::steady_clock::time_point, double>> last_power_;
};

}  // namespace yolo::telemetry
