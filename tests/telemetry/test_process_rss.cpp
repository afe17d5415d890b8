// SPDX-License-Identifier: Apache-2.0
#include "telemetry/process_rss.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "tests/support/temp_folder.h"

namespace yolo::telemetry {
namespace {

using yolo::test::TempFolder;

TEST(ProcessRss, ResidentPagesFromStatm) {
  TempFolder folder;
  folder.write("proc/self/statm", "765 427 399 5 0 123 0\n");
  ProcessRss rss(folder.path() / "proc");
  Sample sample;
  rss.read(sample);
  ASSERT_TRUE(sample.rss_bytes);
  EXPECT_EQ(*sample.rss_bytes, 427 * ::sysconf(_SC_PAGESIZE));
}

TEST(ProcessRss, ThisProcessHasSome) {
  ProcessRss rss("/proc");
  Sample sample;
  rss.read(sample);
  ASSERT_TRUE(sample.rss_bytes);
  EXPECT_GT(*sample.rss_bytes, 1 << 20);
}

TEST(ProcessRss, MissingStatmLeavesItOut) {
  TempFolder folder;
  ProcessRss rss(folder.path() / "proc");
  Sample sample;
  rss.read(sample);
  EXPECT_FALSE(sample.rss_bytes);
  Inventory inventory;
  rss.describe(inventory);
  ASSERT_EQ(inventory.missing.size(), 1u);
  EXPECT_NE(inventory.missing[0].find("self/statm"), std::string::npos);
}

}  // namespace
}  // namespace yolo::telemetry
