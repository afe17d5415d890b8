// SPDX-License-Identifier: Apache-2.0
// Times Sampler::sample() on this machine's /sys and /proc (and the Pi firmware where there is
// one) and prints microseconds; not a test. The telemetry thread calls it once a second.
// Usage: bench_telemetry [SYSFS_ROOT]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "telemetry/sampler.h"

int main(int argc, char** argv) {
  using namespace yolo::telemetry;
  SamplerOptions options;
  if (argc > 1) options.sysfs_root = argv[1];
  FirmwareOpenResult firmware = open_vcio_firmware();
  options.firmware = firmware.firmware;
  options.firmware_missing_reason = firmware.missing_reason;
  Sampler sampler(options);
  std::printf("%s\n", sampler.inventory().line().c_str());

  for (int i = 0; i < 10; ++i) sampler.sample();
  constexpr int kRuns = 1000;
  std::vector<double> us(kRuns);
  for (double& t : us) {
    const auto start = std::chrono::steady_clock::now();
    sampler.sample();
    t = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  }
  std::sort(us.begin(), us.end());
  std::printf("sample(): median %.1f us, p90 %.1f us, max %.1f us over %d runs\n", us[kRuns / 2],
              us[kRuns * 9 / 10], us.back(), kRuns);
  std::printf("%s\n", to_json(sampler.sample()).dump().c_str());
  return 0;
}
