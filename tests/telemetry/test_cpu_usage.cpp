// SPDX-License-Identifier: Apache-2.0
#include "telemetry/cpu_usage.h"

#include <gtest/gtest.h>

#include "tests/support/temp_folder.h"

namespace yolo::telemetry {
namespace {

using yolo::test::TempFolder;

// Fields: user nice system idle iowait irq softirq steal guest guest_nice.
constexpr const char* kBefore =
    "cpu  1000 0 1000 7000 1000 0 0 0 500 0\n"
    "cpu0 500 0 500 3500 500 0 0 0 250 0\n"
    "cpu1 500 0 500 3500 500 0 0 0 250 0\n"
    "intr 12345 0 1 2 3\n"
    "ctxt 98765\n";
// 100 ticks later on each core: cpu0 30 busy (user 20, irq 5, steal 5) and 70 idle or iowait,
// cpu1 90 busy; guest time is inside user already and must not count twice.
constexpr const char* kAfter =
    "cpu  1100 0 1010 7050 1030 5 0 5 600 0\n"
    "cpu0 520 0 500 3540 530 5 0 5 260 0\n"
    "cpu1 580 0 510 3510 500 0 0 0 340 0\n"
    "intr 12400 0 1 2 3\n"
    "ctxt 99000\n";

TEST(CpuUsage, BusyShareBetweenTwoSamples) {
  TempFolder folder;
  folder.write("proc/stat", kBefore);
  CpuUsage usage(folder.path() / "proc");
  Sample first;
  usage.read(first);
  EXPECT_TRUE(first.cpu_busy.empty());
  EXPECT_FALSE(first.cpu_busy_total);

  folder.write("proc/stat", kAfter);
  Sample second;
  usage.read(second);
  ASSERT_EQ(second.cpu_busy.size(), 2u);
  EXPECT_DOUBLE_EQ(second.cpu_busy[0], 0.3);
  EXPECT_DOUBLE_EQ(second.cpu_busy[1], 0.9);
  ASSERT_TRUE(second.cpu_busy_total);
  EXPECT_DOUBLE_EQ(*second.cpu_busy_total, 0.6);

  // No tick in between: nothing to say.
  Sample third;
  usage.read(third);
  EXPECT_TRUE(third.cpu_busy.empty());
  EXPECT_FALSE(third.cpu_busy_total);
}

TEST(CpuUsage, MissingStatIsReported) {
  TempFolder folder;
  CpuUsage usage(folder.path() / "proc");
  Sample sample;
  usage.read(sample);
  EXPECT_TRUE(sample.cpu_busy.empty());
  Inventory inventory;
  usage.describe(inventory);
  ASSERT_EQ(inventory.missing.size(), 1u);
  EXPECT_NE(inventory.missing[0].find("proc/stat: No such file"), std::string::npos)
      << inventory.missing[0];
}

}  // namespace
}  // namespace yolo::telemetry
