// SPDX-License-Identifier: Apache-2.0
#include "telemetry/sample.h"

#include <gtest/gtest.h>

namespace yolo::telemetry {
namespace {

TEST(Sample, JsonLeavesMissingSensorsOut) {
  EXPECT_EQ(to_json(Sample{}), nlohmann::json::object());

  Sample s;
  s.thermal.push_back({"thermal_zone0", "cpu-thermal", 48.6862});
  s.rss_bytes = 1 << 20;
  const nlohmann::json j = to_json(s);
  EXPECT_EQ(j, nlohmann::json::parse(R"({"temp_c": {"cpu-thermal": 48.69}, "rss_bytes": 1048576})"))
      << j.dump();
}

TEST(Sample, JsonKeepsZonesOfTheSameType) {
  Sample s;
  s.thermal.push_back({"thermal_zone0", "acpitz", 45});
  s.thermal.push_back({"thermal_zone1", "x86_pkg_temp", 61});
  s.thermal.push_back({"thermal_zone2", "acpitz", 27.8});
  const nlohmann::json expected = {
      {"acpitz", 45.0}, {"x86_pkg_temp", 61.0}, {"acpitz (thermal_zone2)", 27.8}};
  EXPECT_EQ(to_json(s)["temp_c"], expected);
}

TEST(Sample, JsonHasEveryPresentField) {
  Sample s;
  s.thermal.push_back({"thermal_zone3", "", 40});
  s.clocks.push_back({0, 1500});
  s.arm_clock_mhz = 1200.0;
  s.throttle = ThrottleState{0x50005};
  s.under_voltage_alarm = false;
  s.power.push_back({"pmic", 3.9123});
  s.power_w = 3.9123;
  s.energy_j = 12.5;
  s.cpu_busy = {0.25, 0.5};
  s.cpu_busy_total = 0.375;
  const nlohmann::json j = to_json(s);
  EXPECT_EQ(j["temp_c"]["thermal_zone3"], 40.0);
  EXPECT_EQ(j["clock_mhz"], nlohmann::json::array({1500.0}));
  EXPECT_EQ(j["arm_clock_mhz"], 1200.0);
  EXPECT_EQ(j["throttle"]["raw"], "0x50005");
  EXPECT_EQ(j["throttle"]["under_voltage"], true);
  EXPECT_EQ(j["throttle"]["frequency_capped"], false);
  EXPECT_EQ(j["throttle"]["since_boot"]["throttled"], true);
  EXPECT_EQ(j["under_voltage_alarm"], false);
  EXPECT_NEAR(j["power_sources_w"]["pmic"].get<double>(), 3.912, 1e-9);
  EXPECT_NEAR(j["power_w"].get<double>(), 3.912, 1e-9);
  EXPECT_EQ(j["energy_j"], 12.5);
  EXPECT_EQ(j["cpu_busy"], nlohmann::json::array({0.25, 0.5}));
  EXPECT_EQ(j["cpu_busy_total"], 0.375);
}

}  // namespace
}  // namespace yolo::telemetry
