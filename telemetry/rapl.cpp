// SPDX-License-Identifier: Apache-2.0
#include "telemetry/rapl.h"

#include <algorithm>
#include <set>

#include "telemetry/kernel_file.h"

namespace yolo::telemetry {

namespace fs = std::filesystem;

namespace {

class RaplDomain : public PowerSource {
 public:
  RaplDomain(std::string label, KernelFile energy_uj, std::int64_t range_uj)
      : PowerSource(std::move(label)), energy_uj_(std::move(energy_uj)), range_uj_(range_uj) {}

  std::optional<PowerMeasurement> read(std::chrono::steady_clock::time_point now) override {
    const std::optional<std::int64_t> uj = energy_uj_.read_int();
    if (!uj) return std::nullopt;
    if (!last_uj_) return restart(*uj, now);
    const double seconds = std::chrono::duration<double>(now - last_time_).count();
    if (seconds <= 0) return std::nullopt;
    std::int64_t delta = *uj - *last_uj_;
    // The counter went past max_energy_range_uj and started again from 0.
    if (delta < 0 && range_uj_ > 0) delta += range_uj_;
    if (delta < 0) return restart(*uj, now);
    last_uj_ = *uj;
    last_time_ = now;
    const double joules = static_cast<double>(delta) / 1e6;
    return PowerMeasurement{joules / seconds, joules};
  }

 private:
  // Takes `uj` as the new starting point; there is nothing to measure against yet.
  std::optional<PowerMeasurement> restart(std::int64_t uj,
                                          std::chrono::steady_clock::time_point now) {
    last_uj_ = uj;
    last_time_ = now;
    return std::nullopt;
  }

  KernelFile energy_uj_;
  // The counter wraps to 0 past this (max_energy_range_uj); 0 when unknown.
  std::int64_t range_uj_;
  // The previous read.
  std::optional<std::int64_t> last_uj_;
  std::chrono::steady_clock::time_point last_time_;
};

std::string permission_problem(const fs::path& file, const std::error_code& error) {
  std::string text = "RAPL: " + open_failure(file, error);
  if (error == std::errc::permission_denied || error == std::errc::operation_not_permitted) {
    text +=
        " (energy counters are root-only since CVE-2020-8694): run as root, or add a udev rule "
        "that gives the service's group read access to intel-rapl energy_uj";
  }
  return text;
}

}  // namespace

RaplDomains find_rapl_domains(const fs::path& sysfs_root) {
  // Zones and subzones ("intel-rapl:0", "intel-rapl:0:1") sit side by side in class/powercap.
  std::vector<fs::path> zones;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(sysfs_root / "class/powercap", error)) {
    if (entry.path().filename().string().starts_with("intel-rapl:")) zones.push_back(entry.path());
  }
  std::sort(zones.begin(), zones.end());

  RaplDomains domains;
  std::vector<std::unique_ptr<PowerSource>> others;
  std::set<std::string> labels;
  for (const fs::path& zone : zones) {
    const std::string name = read_trimmed(zone / "name").value_or(zone.filename().string());
    auto energy = KernelFile::open(zone / "energy_uj", error);
    if (!energy) {
      if (domains.problem.empty()) domains.problem = permission_problem(zone / "energy_uj", error);
      continue;
    }
    const std::int64_t range =
        parse_int(read_trimmed(zone / "max_energy_range_uj").value_or("")).value_or(0);
    std::string label = "rapl " + name;
    if (!labels.insert(label).second) label += " (" + zone.filename().string() + ")";
    auto domain = std::make_unique<RaplDomain>(std::move(label), std::move(*energy), range);
    if (name.starts_with("package")) {
      domains.sources.push_back(std::move(domain));
    } else {
      others.push_back(std::move(domain));
    }
  }
  domains.packages = domains.sources.size();
  for (auto& other : others) domains.sources.push_back(std::move(other));
  return domains;
}

}  // namespace yolo::telemetry
