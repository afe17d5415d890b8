// SPDX-License-Identifier: Apache-2.0
#include "telemetry/hwmon_power.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tests/support/temp_folder.h"

namespace yolo::telemetry {
namespace {

namespace fs = std::filesystem;
using yolo::test::TempFolder;

const std::chrono::steady_clock::time_point kNow{};

// An I2C board with an INA219 (0x40, power1_input), an INA3221 (0x41, channels 1 and 2 wired,
// channel 3 disabled) and an INA226 (0x44, no power file: bus mV x mA), beside hwmon devices that
// measure no power, numbered as `numbers` says (hwmonN numbers change between boots).
void write_board(const TempFolder& folder, const std::map<std::string, int>& numbers) {
  const auto hwmon = [&](const std::string& chip) {
    return fs::path("sys/class/hwmon") / ("hwmon" + std::to_string(numbers.at(chip)));
  };
  const auto link_device = [&](const std::string& chip, const std::string& address) {
    const fs::path device = folder.path() / "sys/devices/i2c-1" / address;
    fs::create_directories(device);
    fs::create_directory_symlink(device, folder.path() / hwmon(chip) / "device");
  };
  folder.write(hwmon("cpu_thermal") / "name", "cpu_thermal\n");
  folder.write(hwmon("cpu_thermal") / "temp1_input", "48000\n");
  folder.write(hwmon("rpi_volt") / "name", "rpi_volt\n");
  folder.write(hwmon("rpi_volt") / "in0_lcrit_alarm", "0\n");

  folder.write(hwmon("ina219") / "name", "ina219\n");
  folder.write(hwmon("ina219") / "power1_input", "2500000\n");
  folder.write(hwmon("ina219") / "in1_input", "5000\n");
  folder.write(hwmon("ina219") / "curr1_input", "1\n");
  link_device("ina219", "1-0040");

  folder.write(hwmon("ina3221") / "name", "ina3221\n");
  folder.write(hwmon("ina3221") / "in1_input", "5000\n");
  folder.write(hwmon("ina3221") / "curr1_input", "400\n");
  folder.write(hwmon("ina3221") / "in2_input", "3300\n");
  folder.write(hwmon("ina3221") / "curr2_input", "100\n");
  // A disabled channel's files exist but fail to read (ENODATA); a folder fails the same way.
  fs::create_directories(folder.path() / hwmon("ina3221") / "in3_input");
  fs::create_directories(folder.path() / hwmon("ina3221") / "curr3_input");
  link_device("ina3221", "1-0041");

  folder.write(hwmon("ina226") / "name", "ina226\n");
  folder.write(hwmon("ina226") / "in0_input", "2\n");
  folder.write(hwmon("ina226") / "in1_input", "12000\n");
  folder.write(hwmon("ina226") / "curr1_input", "250\n");
  link_device("ina226", "1-0044");
}

// Each source's label and watts, in the order found.
std::vector<std::pair<std::string, double>> read_all(const fs::path& sysfs_root) {
  std::vector<std::pair<std::string, double>> readings;
  for (const auto& source : find_hwmon_power(find_hwmon_devices(sysfs_root))) {
    const auto m = source->read(kNow);
    EXPECT_TRUE(m) << source->label();
    if (!m) continue;
    EXPECT_FALSE(m->energy_j) << source->label();
    readings.emplace_back(source->label(), m->watts);
  }
  return readings;
}

TEST(HwmonPower, FindsInaSensorsByNameWhateverTheirNumbers) {
  const std::vector<std::pair<std::string, double>> expected = {
      {"ina219 (1-0040)", 2.5},
      {"ina3221 (1-0041)", 5.0 * 0.4 + 3.3 * 0.1},
      {"ina226 (1-0044)", 12.0 * 0.25},
  };
  for (const auto& numbers :
       {std::map<std::string, int>{
            {"cpu_thermal", 0}, {"ina3221", 1}, {"rpi_volt", 2}, {"ina219", 3}, {"ina226", 4}},
        std::map<std::string, int>{
            {"ina226", 0}, {"ina219", 1}, {"cpu_thermal", 2}, {"ina3221", 3}, {"rpi_volt", 4}}}) {
    TempFolder folder;
    write_board(folder, numbers);
    const auto readings = read_all(folder.path() / "sys");
    ASSERT_EQ(readings.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
      EXPECT_EQ(readings[i].first, expected[i].first);
      EXPECT_NEAR(readings[i].second, expected[i].second, 1e-12) << expected[i].first;
    }
  }
}

TEST(HwmonPower, AnUnreadableSensorGivesNoReading) {
  TempFolder folder;
  folder.write("sys/class/hwmon/hwmon0/name", "ina219\n");
  fs::create_directories(folder.path() / "sys/class/hwmon/hwmon0/power1_input");
  const auto sources = find_hwmon_power(find_hwmon_devices(folder.path() / "sys"));
  ASSERT_EQ(sources.size(), 1u);
  EXPECT_EQ(sources[0]->label(), "ina219 (hwmon0)");
  EXPECT_FALSE(sources[0]->read(kNow));
}

TEST(HwmonPower, NoSensorsNoSources) {
  TempFolder folder;
  folder.write("sys/class/hwmon/hwmon0/name", "coretemp\n");
  folder.write("sys/class/hwmon/hwmon1/name", "ina219\n");  // no power, voltage or current file
  EXPECT_TRUE(find_hwmon_power(find_hwmon_devices(folder.path() / "sys")).empty());
  EXPECT_TRUE(find_hwmon_power(find_hwmon_devices(folder.path() / "absent")).empty());
}

}  // namespace
}  // namespace yolo::telemetry
