// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "telemetry/power_source.h"

namespace yolo::telemetry {

// The RAPL energy counters of an x86 machine (<sysfs>/class/powercap/intel-rapl:N[:M], AMD's
// included): power is the counter's growth over time, wrap-around at max_energy_range_uj handled.
struct RaplDomains {
  // Package domains first, then the others (dram, core, uncore, psys).
  std::vector<std::unique_ptr<PowerSource>> sources;
  // How many of `sources`, from the front, are package domains.
  std::size_t packages = 0;
  // Why domains were left out (their counters are root-only), with what to do; empty if none was.
  std::string problem;
};

RaplDomains find_rapl_domains(const std::filesystem::path& sysfs_root);

}  // namespace yolo::telemetry
