// SPDX-License-Identifier: Apache-2.0
#include "cli/bench/device_monitor.h"

#include <chrono>
#include <condition_variable>
#include <numeric>

#include "telemetry/firmware.h"

namespace yolo::cli {

namespace {

namespace telemetry = telemetry;

telemetry::SamplerOptions sampler_options(const std::filesystem::path& sysfs_root) {
  telemetry::SamplerOptions options;
  options.sysfs_root = sysfs_root;
  auto firmware = telemetry::open_vcio_firmware();
  options.firmware = std::move(firmware.firmware);
  options.firmware_missing_reason = std::move(firmware.missing_reason);
  return options;
}

DeviceReading reading_of(const telemetry::Sample& s) {
  DeviceReading r;
  r.time = s.mono;
  r.temp_c = s.max_celsius();
  if (s.arm_clock_mhz) {
    r.clock_mhz = s.arm_clock_mhz;
  } else if (!s.clocks.empty()) {
    const double sum = std::accumulate(s.clocks.begin(), s.clocks.end(), 0.0,
                                       [](double total, const auto& c) { return total + c.mhz; });
    r.clock_mhz = sum / static_cast<double>(s.clocks.size());
  }
  if (s.throttle) r.throttled = s.throttle->any_now();
  r.energy_j = s.energy_j;
  return r;
}

}  // namespace

DeviceMonitor::DeviceMonitor(const std::filesystem::path& sysfs_root)
    : sampler_(sampler_options(sysfs_root)) {
  sampler_.sample();
  ticker_ = std::jthread([this](std::stop_token stop) {
    std::mutex sleep_mutex;
    std::condition_variable_any sleep;
    for (;;) {
      {
        std::unique_lock lock(sleep_mutex);
        sleep.wait_for(lock, stop, std::chrono::seconds(1), [] { return false; });
        if (stop.stop_requested()) return;
      }
      std::lock_guard lock(mutex_);
      sampler_.sample();
    }
  });
}

DeviceMonitor::~DeviceMonitor() {
  ticker_.request_stop();
  ticker_.join();
}

DeviceReading DeviceMonitor::read() {
  std::lock_guard lock(mutex_);
  return reading_of(sampler_.sample());
}

}  // namespace yolo::cli
