// SPDX-License-Identifier: Apache-2.0
#include "telemetry/power_meter.h"

#include "telemetry/hwmon.h"
#include "telemetry/hwmon_power.h"
#include "telemetry/pmic_power.h"
#include "telemetry/rapl.h"

namespace yolo::telemetry {

PowerMeter::PowerMeter(const std::filesystem::path& sysfs_root, std::shared_ptr<Firmware> firmware,
                       std::chrono::steady_clock::duration pmic_period)
    : sources_(find_hwmon_power(find_hwmon_devices(sysfs_root))) {
  if (auto pmic = open_pmic_power(std::move(firmware), pmic_period)) {
    sources_.push_back(std::move(pmic));
  }
  if (!sources_.empty()) preferred_ = 0;
  RaplDomains rapl = find_rapl_domains(sysfs_root);
  if (!preferred_ && rapl.packages > 0) preferred_ = sources_.size();
  for (auto& domain : rapl.sources) sources_.push_back(std::move(domain));
  rapl_problem_ = std::move(rapl.problem);
}

void PowerMeter::read(Sample& sample) {
  for (std::size_t i = 0; i < sources_.size(); ++i) {
    const std::optional<PowerMeasurement> m = sources_[i]->read(sample.mono);
    if (!m) continue;
    sample.power.push_back({sources_[i]->label(), m->watts});
    if (i == preferred_) {
      sample.power_w = m->watts;
      count_energy(sample.mono, *m);
      sample.energy_j = energy_j_;
    }
  }
}

void PowerMeter::count_energy(std::chrono::steady_clock::time_point now,
                              const PowerMeasurement& m) {
  if (m.energy_j) {
    energy_j_ += *m.energy_j;
    return;
  }
  if (last_power_) {
    const double seconds = std::chrono::duration<double>(now - last_power_->first).count();
    energy_j_ += (last_power_->second + m.watts) / 2 * seconds;
  }
  last_power_ = {now, m.watts};
}

void PowerMeter::describe(Inventory& inventory) const {
  if (!sources_.empty()) {
    std::string labels;
    for (const auto& source : sources_) labels += (labels.empty() ? "" : ", ") + source->label();
    if (preferred_ && sources_.size() > 1) {
      labels += "; energy from " + sources_[*preferred_]->label();
    }
    inventory.found.push_back("power: " + labels);
  }
  if (!preferred_) {
    inventory.missing.push_back(
        "power: no INA2xx/INA3221 hwmon sensor, no Pi 5 PMIC and no readable RAPL package "
        "counter, so no power or energy per frame");
  }
  if (!rapl_problem_.empty()) inventory.missing.push_back(rapl_problem_);
}

}  // namespace yolo::telemetry
