// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace yolo::telemetry {

// One temperature sensor: a thermal zone (millidegrees C in sysfs, degrees here).
struct ThermalReading {
  std::string zone;  // "thermal_zone0"
  std::string type;  // "cpu-thermal", "x86_pkg_temp", ...
  double celsius = 0;
};

// One core's clock as the kernel last requested it (cpufreq scaling_cur_freq).
struct CoreClock {
  int cpu = 0;
  double mhz = 0;
};

// The Raspberry Pi firmware's throttle word (vcgencmd get_throttled): bits 0-3 now, 16-19 the
// same four conditions since boot.
struct ThrottleState {
  std::uint32_t raw = 0;

  bool under_voltage() const { return raw & (1u << 0); }
  bool frequency_capped() const { return raw & (1u << 1); }
  bool throttled() const { return raw & (1u << 2); }
  bool soft_temp_limit() const { return raw & (1u << 3); }
  bool under_voltage_since_boot() const { return raw & (1u << 16); }
  bool frequency_capped_since_boot() const { return raw & (1u << 17); }
  bool throttled_since_boot() const { return raw & (1u << 18); }
  bool soft_temp_limit_since_boot() const { return raw & (1u << 19); }
  // Any of the four "now" conditions: the clock the model runs at is not the one it had.
  bool any_now() const { return raw & 0xFu; }

  bool operator==(const ThrottleState&) const = default;
};

// One power source: an hwmon sensor, the Pi 5 PMIC's rails summed, or a RAPL domain.
struct PowerReading {
  std::string source;  // "ina219 (hwmon2)", "pmic", "rapl package-0"
  double watts = 0;
};

// Everything the device tells about itself at one moment. A sensor the device lacks leaves its
// field empty (nullopt or no entry), never zero.
struct Sample {
  std::chrono::system_clock::time_point wall;
  std::chrono::steady_clock::time_point mono;

  std::vector<ThermalReading> thermal;
  std::vector<CoreClock> clocks;
  // The Arm clock the firmware measures (vcgencmd measure_clock arm); unlike scaling_cur_freq it
  // shows firmware throttling.
  std::optional<double> arm_clock_mhz;
  std::optional<ThrottleState> throttle;
  // Under-voltage alarm of the Pi's rpi_volt hwmon device (in0_lcrit_alarm).
  std::optional<bool> under_voltage_alarm;
  std::vector<PowerReading> power;
  // The preferred source's power: an external sensor (INA2xx/INA3221) over the Pi 5 PMIC over
  // RAPL.
  std::optional<double> power_w;
  // Energy the preferred source counted since the sampler started, in joules: RAPL's counter
  // (wrap-around handled) or power integrated over time. Differences give energy per frame.
  std::optional<double> energy_j;
  // Share of each core busy since the previous sample, 0..1 (/proc/stat); empty on the first.
  std::vector<double> cpu_busy;
  std::optional<double> cpu_busy_total;
  // Resident memory of this process.
  std::optional<std::int64_t> rss_bytes;

  // The hottest zone, for one-line summaries (STATUS=, the stats panel).
  std::optional<double> max_celsius() const;
};

// The sample as JSON: every present field, missing sensors left out. Used by the field log and
// the status API.
nlohmann::json to_json(const Sample& sample);

// The keys of to_json's readings that readers of the field log look for (`yolo-edge report`).
namespace key {
inline constexpr char kTempC[] = "temp_c";
inline constexpr char kClockMhz[] = "clock_mhz";
inline constexpr char kArmClockMhz[] = "arm_clock_mhz";
inline constexpr char kThrottle[] = "throttle";
// The throttle word's four conditions, each now and under "since_boot".
inline constexpr char kUnderVoltage[] = "under_voltage";
inline constexpr char kFrequencyCapped[] = "frequency_capped";
inline constexpr char kThrottled[] = "throttled";
inline constexpr char kSoftTempLimit[] = "soft_temp_limit";
inline constexpr const char* kThrottleConditions[] = {kUnderVoltage, kFrequencyCapped, kThrottled,
                                                      kSoftTempLimit};
}  // namespace key

}  // namespace yolo::telemetry
