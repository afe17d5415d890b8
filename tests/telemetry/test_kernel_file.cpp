// SPDX-License-Identifier: Apache-2.0
#include "telemetry/kernel_file.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/support/temp_folder.h"

namespace yolo::telemetry {
namespace {

using yolo::test::TempFolder;

TEST(KernelFile, ReadsTheCurrentContentEachTime) {
  TempFolder folder;
  folder.write("temp", "48686\n");
  auto file = KernelFile::open(folder.path() / "temp");
  ASSERT_TRUE(file);
  EXPECT_EQ(file->read_int(), 48686);
  folder.write("temp", "51000\n");
  EXPECT_EQ(file->read_int(), 51000);
  EXPECT_EQ(file->path(), folder.path() / "temp");
}

TEST(KernelFile, ReadsAFileLargerThanItsFirstBufferWhole) {
  TempFolder folder;
  const std::string text = std::string(5000, 'x') + "end";
  folder.write("stat", text);
  auto file = KernelFile::open(folder.path() / "stat");
  ASSERT_TRUE(file);
  EXPECT_EQ(file->read(), text);
}

TEST(KernelFile, ReportsWhyItWouldNotOpen) {
  TempFolder folder;
  std::error_code error;
  EXPECT_FALSE(KernelFile::open(folder.path() / "absent", error));
  EXPECT_EQ(error, std::errc::no_such_file_or_directory);
  EXPECT_EQ(open_failure(folder.path() / "absent", error),
            (folder.path() / "absent").string() + ": No such file or directory");
}

TEST(KernelFile, AnUnreadableFileReadsAsNothing) {
  TempFolder folder;
  // A folder opens but fails every read, like a sensor that is not ready.
  std::filesystem::create_directories(folder.path() / "temp");
  auto file = KernelFile::open(folder.path() / "temp");
  ASSERT_TRUE(file);
  EXPECT_FALSE(file->read());
  EXPECT_FALSE(file->read_int());
}

TEST(KernelFile, ParsesNumbersAndNothingElse) {
  EXPECT_EQ(parse_int(" 42\n"), 42);
  EXPECT_EQ(parse_int("-7"), -7);
  EXPECT_EQ(parse_int("50005", 16), 0x50005);
  EXPECT_EQ(parse_int("0x50005", 16), 0x50005);
  EXPECT_FALSE(parse_int(""));
  EXPECT_FALSE(parse_int("12ab"));
  EXPECT_FALSE(parse_int("0x10"));
  EXPECT_EQ(parse_double("0.88725180"), 0.88725180);
  EXPECT_FALSE(parse_double("1.5A"));
}

TEST(KernelFile, NumberedEntriesAreSortedByNumber) {
  TempFolder folder;
  for (const char* name : {"cpu10", "cpu2", "cpu0", "cpufreq", "cpuidle", "cpu1x"}) {
    std::filesystem::create_directories(folder.path() / name);
  }
  const auto entries = numbered_entries(folder.path(), "cpu");
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].first, 0);
  EXPECT_EQ(entries[1].first, 2);
  EXPECT_EQ(entries[2].first, 10);
  EXPECT_EQ(entries[2].second, folder.path() / "cpu10");
  EXPECT_TRUE(numbered_entries(folder.path() / "absent", "cpu").empty());
}

TEST(KernelFile, ReadTrimmedDropsTheNewline) {
  TempFolder folder;
  folder.write("type", "cpu-thermal\n");
  EXPECT_EQ(read_trimmed(folder.path() / "type"), "cpu-thermal");
  EXPECT_FALSE(read_trimmed(folder.path() / "absent"));
}

}  // namespace
}  // namespace yolo::telemetry
