// SPDX-License-Identifier: Apache-2.0
#include "telemetry/sampler.h"

#include "telemetry/core_clocks.h"
#include "telemetry/cpu_usage.h"
#include "telemetry/pi_health.h"
#include "telemetry/power_meter.h"
#include "telemetry/process_rss.h"
#include "telemetry/thermal_zones.h"

namespace yolo::telemetry {

Sampler::Sampler(SamplerOptions options) {
  groups_.push_back(std::make_unique<ThermalZones>(options.sysfs_root));
  groups_.push_back(std::make_unique<CoreClocks>(options.sysfs_root));
  groups_.push_back(std::make_unique<PiHealth>(options.sysfs_root, options.firmware));
  groups_.push_back(
      std::make_unique<PowerMeter>(options.sysfs_root, options.firmware, options.pmic_period));
  groups_.push_back(std::make_unique<CpuUsage>(options.proc_root));
  groups_.push_back(std::make_unique<ProcessRss>(options.proc_root));
  for (const auto& group : groups_) group->describe(inventory_);
  if (!options.firmware && !options.firmware_missing_reason.empty()) {
    inventory_.missing.push_back("firmware: " + options.firmware_missing_reason);
  }
}

Sampler::~Sampler() = default;

Sample Sampler::sample() {
  return sample_at(std::chrono::steady_clock::now(), std::chrono::system_clock::now());
}

Sample Sampler::sample_at(std::chrono::steady_clock::time_point mono,
                          std::chrono::system_clock::time_point wall) {
  Sample sample;
  sample.mono = mono;
  sample.wall = wall;
  for (const auto& group : groups_) group->read(sample);
  return sample;
}

}  // namespace yolo::telemetry
