// SPDX-License-Identifier: Apache-2.0
#include "telemetry/firmware_replies.h"

#include <gtest/gtest.h>

namespace yolo::telemetry {
namespace {

TEST(FirmwareReplies, ThrottleWord) {
  EXPECT_EQ(parse_throttled("throttled=0x50005"), 0x50005u);
  EXPECT_EQ(parse_throttled("throttled=0x0\n"), 0u);
  EXPECT_EQ(parse_throttled("throttled=0xe0008"), 0xe0008u);
  EXPECT_FALSE(parse_throttled("error=1 error_msg=\"Command not registered\""));
  EXPECT_FALSE(parse_throttled("throttled="));
  EXPECT_FALSE(parse_throttled(""));
}

TEST(FirmwareReplies, MeasuredClock) {
  EXPECT_EQ(parse_clock_hz("frequency(48)=1500000000"), 1.5e9);
  EXPECT_EQ(parse_clock_hz("frequency(0)=2400033792\n"), 2400033792.0);
  EXPECT_FALSE(parse_clock_hz("frequency(48)=fast"));
  EXPECT_FALSE(parse_clock_hz("throttled=0x0"));
}

TEST(FirmwareReplies, PmicPowerPairsRailsByName) {
  // Rails in any order, aligned as the firmware prints them; EXT5V and BATT have a voltage only
  // and add nothing.
  const char* reply =
      "     VDD_CORE_A current(7)=2.00000000A\n"
      "      3V3_SYS_A current(1)=0.50000000A\n"
      "      1V8_SYS_A current(2)=0.25000000A\n"
      "      VDD_CORE_V volt(15)=0.80000000V\n"
      "      3V3_SYS_V volt(9)=3.30000000V\n"
      "      1V8_SYS_V volt(10)=1.80000000V\n"
      "        EXT5V_V volt(24)=5.10600000V\n"
      "         BATT_V volt(25)=0.00000000V\n";
  const auto watts = parse_pmic_watts(reply);
  ASSERT_TRUE(watts);
  EXPECT_NEAR(*watts, 2.0 * 0.8 + 0.5 * 3.3 + 0.25 * 1.8, 1e-12);
}

TEST(FirmwareReplies, PmicWithoutPairsIsNoPower) {
  EXPECT_FALSE(parse_pmic_watts("  EXT5V_V volt(24)=5.10600000V\n  VDD_CORE_A current(7)=1.5A"));
  EXPECT_FALSE(parse_pmic_watts("error=2 error_msg=\"Invalid arguments\""));
  EXPECT_FALSE(parse_pmic_watts(""));
}

}  // namespace
}  // namespace yolo::telemetry
