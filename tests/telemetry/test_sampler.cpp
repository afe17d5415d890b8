// SPDX-License-Identifier: Apache-2.0
#include "telemetry/sampler.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "tests/support/temp_folder.h"
#include "tests/telemetry/fake_firmware.h"
#include "tests/telemetry/without_file_override.h"

namespace yolo::telemetry {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using test::FakeFirmware;
using yolo::test::TempFolder;

const std::chrono::steady_clock::time_point kStart = std::chrono::steady_clock::time_point{} + 1h;
const std::chrono::system_clock::time_point kWall{};

bool has(const std::vector<std::string>& items, const std::string& part) {
  for (const auto& item : items) {
    if (item.find(part) != std::string::npos) return true;
  }
  return false;
}

void write_proc(const TempFolder& folder, int busy_ticks) {
  const std::string busy = std::to_string(busy_ticks);
  folder.write("proc/stat", "cpu  " + busy + " 0 0 1000 0 0 0 0 0 0\ncpu0 " + busy +
                                " 0 0 1000 0 0 0 0 0 0\nintr 1 2 3\n");
  folder.write("proc/self/statm", "765 427 399 5 0 123 0\n");
}

void write_cores(const TempFolder& folder, int cores, int khz) {
  for (int cpu = 0; cpu < cores; ++cpu) {
    folder.write("sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpufreq/scaling_cur_freq",
                 std::to_string(khz + 100'000 * cpu) + "\n");
  }
}

void write_zone(const TempFolder& folder, int n, const std::string& type, int millidegrees) {
  const fs::path zone = "sys/class/thermal/thermal_zone" + std::to_string(n);
  folder.write(zone / "type", type + "\n");
  folder.write(zone / "temp", std::to_string(millidegrees) + "\n");
}

void write_rpi_volt(const TempFolder& folder, int hwmon, int alarm) {
  const fs::path dir = "sys/class/hwmon/hwmon" + std::to_string(hwmon);
  folder.write(dir / "name", "rpi_volt\n");
  folder.write(dir / "in0_lcrit_alarm", std::to_string(alarm) + "\n");
}

// A Raspberry Pi 4: one thermal zone, 4 cores, the kernel's copy of the throttle word, rpi_volt,
// no power sensor.
void write_pi4(const TempFolder& folder) {
  write_zone(folder, 0, "cpu-thermal", 48686);
  write_cores(folder, 4, 1'500'000);
  folder.write("sys/devices/platform/soc/soc:firmware/get_throttled", "50005\n");
  folder.write("sys/class/hwmon/hwmon0/name", "cpu_thermal\n");
  write_rpi_volt(folder, 1, 1);
  write_proc(folder, 100);
}

SamplerOptions options_for(const TempFolder& folder, std::shared_ptr<Firmware> firmware) {
  SamplerOptions options;
  options.sysfs_root = folder.path() / "sys";
  options.proc_root = folder.path() / "proc";
  options.firmware = std::move(firmware);
  if (!options.firmware) options.firmware_missing_reason = "/dev/vcio absent in this test";
  return options;
}

TEST(Sampler, Pi4WithoutFirmware) {
  TempFolder folder;
  write_pi4(folder);
  Sampler sampler(options_for(folder, nullptr));
  const Sample s = sampler.sample_at(kStart, kWall);

  EXPECT_EQ(s.mono, kStart);
  EXPECT_EQ(s.wall, kWall);
  ASSERT_EQ(s.thermal.size(), 1u);
  EXPECT_EQ(s.thermal[0].zone, "thermal_zone0");
  EXPECT_EQ(s.thermal[0].type, "cpu-thermal");
  EXPECT_DOUBLE_EQ(s.thermal[0].celsius, 48.686);
  ASSERT_EQ(s.clocks.size(), 4u);
  for (int cpu = 0; cpu < 4; ++cpu) {
    EXPECT_EQ(s.clocks[cpu].cpu, cpu);
    EXPECT_DOUBLE_EQ(s.clocks[cpu].mhz, 1500 + 100 * cpu);
  }
  ASSERT_TRUE(s.throttle);
  EXPECT_EQ(s.throttle->raw, 0x50005u);
  EXPECT_TRUE(s.throttle->under_voltage());
  EXPECT_TRUE(s.throttle->throttled());
  EXPECT_TRUE(s.throttle->under_voltage_since_boot());
  EXPECT_EQ(s.under_voltage_alarm, true);
  EXPECT_FALSE(s.arm_clock_mhz);
  EXPECT_TRUE(s.power.empty());
  EXPECT_FALSE(s.power_w);
  EXPECT_FALSE(s.energy_j);
  EXPECT_EQ(s.rss_bytes, 427 * ::sysconf(_SC_PAGESIZE));

  const Inventory& inventory = sampler.inventory();
  EXPECT_TRUE(has(inventory.found, "1 thermal zone (cpu-thermal)")) << inventory.line();
  EXPECT_TRUE(has(inventory.found, "4 cores' clocks")) << inventory.line();
  EXPECT_TRUE(has(inventory.found, "soc:firmware/get_throttled")) << inventory.line();
  EXPECT_TRUE(has(inventory.found, "under-voltage alarm (rpi_volt)")) << inventory.line();
  EXPECT_TRUE(has(inventory.missing, "power: no INA2xx/INA3221")) << inventory.line();
  EXPECT_TRUE(has(inventory.missing, "firmware: /dev/vcio absent in this test"))
      << inventory.line();

  const nlohmann::json j = to_json(s);
  EXPECT_TRUE(j.contains("temp_c"));
  EXPECT_TRUE(j.contains("throttle"));
  EXPECT_TRUE(j.contains("under_voltage_alarm"));
  for (const char* absent : {"power_w", "energy_j", "power_sources_w", "arm_clock_mhz"}) {
    EXPECT_FALSE(j.contains(absent)) << absent << " in " << j.dump();
  }
}

TEST(Sampler, Pi4FirmwareThrottleWordWinsAndGivesTheArmClock) {
  TempFolder folder;
  write_pi4(folder);
  auto firmware = std::make_shared<FakeFirmware>();
  firmware->replies["get_throttled"] = "throttled=0x80008";
  firmware->replies["measure_clock arm"] = "frequency(48)=1200002000";
  Sampler sampler(options_for(folder, firmware));

  Sample s = sampler.sample_at(kStart, kWall);
  ASSERT_TRUE(s.throttle);
  EXPECT_EQ(s.throttle->raw, 0x80008u);
  EXPECT_TRUE(s.throttle->soft_temp_limit());
  EXPECT_FALSE(s.throttle->under_voltage());
  ASSERT_TRUE(s.arm_clock_mhz);
  EXPECT_DOUBLE_EQ(*s.arm_clock_mhz, 1200.002);
  // A Pi 4's firmware has no PMIC to ask: still no power.
  EXPECT_TRUE(s.power.empty());
  EXPECT_FALSE(s.power_w);
  EXPECT_TRUE(has(sampler.inventory().found, "firmware throttle flags"));
  EXPECT_TRUE(has(sampler.inventory().found, "firmware Arm clock"));
  EXPECT_FALSE(has(sampler.inventory().missing, "firmware:"));

  // When the firmware stops answering, the kernel's copy stands in.
  firmware->replies.erase("get_throttled");
  s = sampler.sample_at(kStart + 1s, kWall);
  ASSERT_TRUE(s.throttle);
  EXPECT_EQ(s.throttle->raw, 0x50005u);
}

// pmic_read_adc as a Pi 5 prints it, with VDD_CORE's current scaled by `core_load`.
std::string pmic_reply(double core_load) {
  return "     3V7_WL_SW_A current(0)=0.01000000A\n"
         "       3V3_SYS_A current(1)=0.06000000A\n"
         "       1V8_SYS_A current(2)=0.16000000A\n"
         "      DDR_VDD2_A current(3)=0.02000000A\n"
         "      DDR_VDDQ_A current(4)=0.00000000A\n"
         "       1V1_SYS_A current(5)=0.16000000A\n"
         "       0V8_SYS_A current(6)=0.33000000A\n"
         "      VDD_CORE_A current(7)=" +
         std::to_string(1.5 * core_load) +
         "A\n"
         "       0V8_AON_A current(16)=0.00200000A\n"
         "          HDMI_A current(22)=0.02000000A\n"
         "     3V7_WL_SW_V volt(8)=3.71025400V\n"
         "       3V3_SYS_V volt(9)=3.31279500V\n"
         "       1V8_SYS_V volt(10)=1.80000000V\n"
         "      DDR_VDD2_V volt(11)=1.11160500V\n"
         "      DDR_VDDQ_V volt(12)=0.60439560V\n"
         "       1V1_SYS_V volt(13)=1.11025400V\n"
         "       0V8_SYS_V volt(14)=0.80146500V\n"
         "      VDD_CORE_V volt(15)=0.88725180V\n"
         "       0V8_AON_V volt(19)=0.79902340V\n"
         "          HDMI_V volt(23)=5.11282000V\n"
         "         EXT5V_V volt(24)=5.10600000V\n"
         "          BATT_V volt(25)=0.00000000V\n";
}

double pmic_watts(double core_load) {
  return 0.01 * 3.710254 + 0.06 * 3.312795 + 0.16 * 1.8 + 0.02 * 1.111605 + 0.0 * 0.6043956 +
         0.16 * 1.110254 + 0.33 * 0.801465 + 1.5 * core_load * 0.8872518 + 0.002 * 0.7990234 +
         0.02 * 5.11282;
}

struct Pi5 {
  TempFolder folder;
  std::shared_ptr<FakeFirmware> firmware = std::make_shared<FakeFirmware>();

  Pi5() {
    write_zone(folder, 0, "cpu-thermal", 55150);
    write_cores(folder, 4, 2'400'000);
    write_rpi_volt(folder, 3, 0);
    write_proc(folder, 100);
    firmware->replies["get_throttled"] = "throttled=0x0";
    firmware->replies["measure_clock arm"] = "frequency(0)=2400000000";
    firmware->replies["pmic_read_adc"] = pmic_reply(1.0);
  }
};

TEST(Sampler, Pi5BoardPowerFromThePmic) {
  Pi5 pi;
  Sampler sampler(options_for(pi.folder, pi.firmware));
  const Sample s = sampler.sample_at(kStart, kWall);

  ASSERT_TRUE(s.throttle);
  EXPECT_EQ(s.throttle->raw, 0u);
  EXPECT_FALSE(s.throttle->any_now());
  EXPECT_EQ(s.arm_clock_mhz, 2400.0);
  // Present and false: a Pi 5 that has not seen under-voltage.
  EXPECT_EQ(s.under_voltage_alarm, false);
  ASSERT_EQ(s.power.size(), 1u);
  EXPECT_EQ(s.power[0].source, "pmic");
  EXPECT_NEAR(s.power[0].watts, pmic_watts(1.0), 1e-12);
  ASSERT_TRUE(s.power_w);
  EXPECT_NEAR(*s.power_w, pmic_watts(1.0), 1e-12);
  EXPECT_EQ(s.energy_j, 0.0);
  EXPECT_TRUE(has(sampler.inventory().found, "power: pmic")) << sampler.inventory().line();
  EXPECT_FALSE(has(sampler.inventory().missing, "power")) << sampler.inventory().line();
}

TEST(Sampler, Pi5PmicIsAskedOncePerPeriodAndItsPowerIntegrated) {
  Pi5 pi;
  SamplerOptions options = options_for(pi.folder, pi.firmware);
  options.pmic_period = 10s;
  Sampler sampler(options);
  const int asked_at_start = pi.firmware->asked["pmic_read_adc"];

  const Sample first = sampler.sample_at(kStart, kWall);
  EXPECT_EQ(pi.firmware->asked["pmic_read_adc"], asked_at_start + 1);
  pi.firmware->replies["pmic_read_adc"] = pmic_reply(2.0);

  // Within the period the last value stands.
  const Sample second = sampler.sample_at(kStart + 1s, kWall);
  EXPECT_EQ(pi.firmware->asked["pmic_read_adc"], asked_at_start + 1);
  EXPECT_NEAR(*second.power_w, pmic_watts(1.0), 1e-12);
  EXPECT_NEAR(*second.energy_j, pmic_watts(1.0) * 1, 1e-9);

  const Sample third = sampler.sample_at(kStart + 10s, kWall);
  EXPECT_EQ(pi.firmware->asked["pmic_read_adc"], asked_at_start + 2);
  EXPECT_NEAR(*third.power_w, pmic_watts(2.0), 1e-12);
  EXPECT_NEAR(*third.energy_j, pmic_watts(1.0) + (pmic_watts(1.0) + pmic_watts(2.0)) / 2 * 9, 1e-9);
  EXPECT_EQ(first.energy_j, 0.0);
}

// A laptop: several thermal zones (one unreadable), 8 cores, RAPL; no Pi files at all.
void write_laptop(const TempFolder& folder, std::int64_t package_uj, std::int64_t dram_uj) {
  write_zone(folder, 0, "acpitz", 45000);
  write_zone(folder, 1, "x86_pkg_temp", 61000);
  // A wireless card's zone fails its reads while the interface is down.
  folder.write("sys/class/thermal/thermal_zone2/type", "iwlwifi_1\n");
  fs::create_directories(folder.path() / "sys/class/thermal/thermal_zone2/temp");
  write_zone(folder, 10, "INT3400 Thermal", 20000);
  write_cores(folder, 8, 800'000);
  folder.write("sys/class/hwmon/hwmon0/name", "coretemp\n");
  folder.write("sys/class/hwmon/hwmon1/name", "acpitz\n");
  const auto zone = [&](const std::string& id, const std::string& name, std::int64_t uj) {
    const fs::path dir = fs::path("sys/class/powercap") / id;
    folder.write(dir / "name", name + "\n");
    folder.write(dir / "energy_uj", std::to_string(uj) + "\n");
    folder.write(dir / "max_energy_range_uj", "262143328850\n");
  };
  zone("intel-rapl:0", "package-0", package_uj);
  zone("intel-rapl:0:0", "core", 100);
  zone("intel-rapl:0:1", "dram", dram_uj);
  write_proc(folder, 100);
}

TEST(Sampler, LaptopThermalZonesClocksAndRaplEnergy) {
  TempFolder folder;
  write_laptop(folder, 262143328850 - 1'000'000, 5'000'000);
  Sampler sampler(options_for(folder, nullptr));

  const Sample first = sampler.sample_at(kStart, kWall);
  ASSERT_EQ(first.thermal.size(), 3u);
  EXPECT_EQ(first.thermal[0].type, "acpitz");
  EXPECT_EQ(first.thermal[1].type, "x86_pkg_temp");
  EXPECT_EQ(first.thermal[2].zone, "thermal_zone10");
  EXPECT_EQ(first.max_celsius(), 61.0);
  ASSERT_EQ(first.clocks.size(), 8u);
  EXPECT_DOUBLE_EQ(first.clocks[7].mhz, 1500);
  EXPECT_FALSE(first.throttle);
  EXPECT_FALSE(first.arm_clock_mhz);
  EXPECT_FALSE(first.under_voltage_alarm);
  // Counters need two reads.
  EXPECT_TRUE(first.power.empty());
  EXPECT_FALSE(first.power_w);
  EXPECT_FALSE(first.energy_j);
  EXPECT_TRUE(first.cpu_busy.empty());

  // The package counter wraps: 1 J to the end of its range, 2 J past 0.
  write_laptop(folder, 2'000'000, 5'500'000);
  write_proc(folder, 150);
  const Sample second = sampler.sample_at(kStart + 1s, kWall);
  ASSERT_EQ(second.power.size(), 3u);
  EXPECT_EQ(second.power[0].source, "rapl package-0");
  EXPECT_DOUBLE_EQ(second.power[0].watts, 3.0);
  EXPECT_EQ(second.power[2].source, "rapl dram");
  EXPECT_DOUBLE_EQ(second.power[2].watts, 0.5);
  EXPECT_EQ(second.power_w, 3.0);
  EXPECT_EQ(second.energy_j, 3.0);
  ASSERT_EQ(second.cpu_busy.size(), 1u);
  EXPECT_DOUBLE_EQ(second.cpu_busy[0], 1.0);

  write_laptop(folder, 10'000'000, 6'000'000);
  const Sample third = sampler.sample_at(kStart + 3s, kWall);
  EXPECT_EQ(third.power_w, 4.0);
  EXPECT_EQ(third.energy_j, 11.0);

  const Inventory& inventory = sampler.inventory();
  EXPECT_TRUE(
      has(inventory.found, "4 thermal zones (acpitz, x86_pkg_temp, iwlwifi_1, INT3400 Thermal)"))
      << inventory.line();
  EXPECT_TRUE(has(inventory.found, "8 cores' clocks")) << inventory.line();
  EXPECT_TRUE(has(inventory.found, "power: rapl package-0, rapl core, rapl dram"))
      << inventory.line();
  EXPECT_TRUE(has(inventory.missing, "Pi throttle flags: no firmware")) << inventory.line();

  const nlohmann::json j = to_json(third);
  for (const char* absent : {"throttle", "arm_clock_mhz", "under_voltage_alarm"}) {
    EXPECT_FALSE(j.contains(absent)) << absent << " in " << j.dump();
  }
  EXPECT_EQ(j["power_w"], 4.0);
}

TEST(Sampler, LaptopWithRootOnlyRaplHasNoPowerAndSaysWhy) {
  TempFolder folder;
  write_laptop(folder, 1'000'000, 1'000'000);
  for (const char* zone : {"intel-rapl:0", "intel-rapl:0:0", "intel-rapl:0:1"}) {
    fs::permissions(folder.path() / "sys/class/powercap" / zone / "energy_uj", fs::perms::none);
  }
  std::unique_ptr<Sampler> sampler;
  {
    test::WithoutFileOverride as_a_user;
    sampler = std::make_unique<Sampler>(options_for(folder, nullptr));
  }
  sampler->sample_at(kStart, kWall);
  const Sample s = sampler->sample_at(kStart + 1s, kWall);
  EXPECT_TRUE(s.power.empty());
  EXPECT_FALSE(s.power_w);
  EXPECT_FALSE(s.energy_j);
  EXPECT_EQ(s.thermal.size(), 3u);

  const Inventory& inventory = sampler->inventory();
  EXPECT_FALSE(has(inventory.found, "power:")) << inventory.line();
  EXPECT_TRUE(has(inventory.missing, "CVE-2020-8694")) << inventory.line();
  EXPECT_TRUE(has(inventory.missing, "run as root")) << inventory.line();
  EXPECT_EQ(to_json(inventory)["missing"].size(), inventory.missing.size());
}

TEST(Sampler, ExternalSensorIsPreferredAndItsPowerIntegrated) {
  TempFolder folder;
  write_laptop(folder, 0, 0);
  const auto ina219 = [&](int microwatts) {
    folder.write("sys/class/hwmon/hwmon2/name", "ina219\n");
    folder.write("sys/class/hwmon/hwmon2/power1_input", std::to_string(microwatts) + "\n");
  };
  ina219(2'000'000);
  Sampler sampler(options_for(folder, nullptr));
  EXPECT_TRUE(has(sampler.inventory().found, "energy from ina219 (hwmon2)"))
      << sampler.inventory().line();

  // Trapezoid: 0 J, then (2 + 4) / 2 x 1 s = 3 J, then 4 W x 2 s more = 11 J.
  Sample s = sampler.sample_at(kStart, kWall);
  EXPECT_EQ(s.power_w, 2.0);
  EXPECT_EQ(s.energy_j, 0.0);
  ina219(4'000'000);
  s = sampler.sample_at(kStart + 1s, kWall);
  EXPECT_EQ(s.power_w, 4.0);
  EXPECT_EQ(s.energy_j, 3.0);
  s = sampler.sample_at(kStart + 3s, kWall);
  EXPECT_EQ(s.energy_j, 11.0);
  // RAPL is still reported beside it.
  EXPECT_EQ(s.power.front().source, "ina219 (hwmon2)");
  EXPECT_EQ(s.power.size(), 4u);
}

TEST(Sampler, EmptyTreeFindsNothingAndSamplesAnyway) {
  TempFolder folder;
  Sampler sampler(options_for(folder, nullptr));
  const Sample s = sampler.sample_at(kStart, kWall);
  EXPECT_EQ(to_json(s), nlohmann::json::object());
  EXPECT_TRUE(sampler.inventory().found.empty());
  EXPECT_EQ(sampler.inventory().line().rfind("found: nothing; missing: ", 0), 0u)
      << sampler.inventory().line();
}

// The real /sys and /proc: whatever this machine has, sampling works and finds this process.
TEST(Sampler, ThisMachine) {
  Sampler sampler(SamplerOptions{});
  const Sample s = sampler.sample();
  EXPECT_GT(s.rss_bytes.value_or(0), 0);
  EXPECT_TRUE(has(sampler.inventory().found, "CPU use (/proc/stat)")) << sampler.inventory().line();
  EXPECT_GT(sampler.sample().mono, s.mono);
}

}  // namespace
}  // namespace yolo::telemetry
