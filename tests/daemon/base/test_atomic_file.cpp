// SPDX-License-Identifier: Apache-2.0
// Files written whole or not at all (daemon/base/atomic_file.cpp).
#include "daemon/base/atomic_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <system_error>

#include "tests/support/temp_folder.h"

namespace yolo::daemon {
namespace {

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(AtomicFile, ReplacesTheWholeFileAndLeavesNothingBeside) {
  const test::TempFolder dir;
  const auto file = dir.path() / "counts.json";
  write_file_atomically(file, "first");
  write_file_atomically(file, "second, longer");
  EXPECT_EQ(read(file), "second, longer");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()),
                          std::filesystem::directory_iterator()),
            1);
}

TEST(AtomicFile, AFailedWriteKeepsTheOldFileAndSaysWhich) {
  const test::TempFolder dir;
  const auto file = dir.path() / "counts.json";
  write_file_atomically(file, "kept");
  try {
    write_file_atomically(dir.path() / "no-such-folder" / "x.json", "lost");
    FAIL() << "wrote into a folder that does not exist";
  } catch (const std::system_error& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-folder"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read(file), "kept");
}

TEST(AtomicFile, PartialFilesAPowerCutLeftAreRemoved) {
  const test::TempFolder dir;
  std::ofstream(dir.path() / "counts.json.partial") << "half";
  std::ofstream(dir.path() / "counts.json") << "whole";
  EXPECT_TRUE(is_partial_file(dir.path() / "counts.json.partial"));
  EXPECT_EQ(remove_partial_files(dir.path()), 1);
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "counts.json"));
  EXPECT_EQ(remove_partial_files(dir.path() / "missing"), 0);
}

}  // namespace
}  // namespace yolo::daemon
