// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace yolo::telemetry {

// What the sampler found on this device and what it lacks, logged once at start.
struct Inventory {
  // One entry per sensor group found: "2 thermal zones (cpu-thermal, gpu-thermal)".
  std::vector<std::string> found;
  // One entry per sensor left out, with why and what to do: "RAPL: /sys/...: Permission denied
  // (...): run as root or add a udev rule ...".
  std::vector<std::string> missing;

  // "found: A, B; missing: C; D" (without "missing" when nothing is).
  std::string line() const;
};

// {"found": [...], "missing": [...]}.
nlohmann::json to_json(const Inventory& inventory);

}  // namespace yolo::telemetry
