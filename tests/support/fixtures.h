// SPDX-License-Identifier: Apache-2.0
#pragma once

// Where tests find ../shared/fixtures. Tests that need it call YOLO_REQUIRE_FIXTURES() first: in a
// user's fresh clone the folder is absent and those tests skip with a message saying so.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "tests/support/tree_paths.h"

namespace yolo::test {

// $YOLO_EDGE_FIXTURES if set, else ../shared/fixtures beside the source tree.
inline std::filesystem::path fixtures_dir() {
  if (const char* env = std::getenv("YOLO_EDGE_FIXTURES"); env && *env) return env;
  return source_dir().parent_path() / "shared" / "fixtures";
}

inline bool have_fixtures() {
  return std::filesystem::is_directory(fixtures_dir() / "models");
}

// Path of the yolo-edge CLI built beside the tests.
inline std::filesystem::path cli_path() {
  return binary_dir() / "bin" / "yolo-edge";
}

}  // namespace yolo::test

namespace yolo::test {

// True in the arm64 build, whose tests run under user-mode QEMU about 100 times slower: tests that
// repeat the same kernels over many inputs may prove them there on fewer.
constexpr bool kEmulated =
#ifdef YOLO_EDGE_EMULATED
    true;
#else
    false;
#endif

}  // namespace yolo::test

#define YOLO_REQUIRE_FIXTURES()                                                          \
  do {                                                                                   \
    if (!::yolo::test::have_fixtures())                                                  \
      GTEST_SKIP() << "fixtures not found at " << ::yolo::test::fixtures_dir()           \
                   << " (clone ../shared beside the project or set YOLO_EDGE_FIXTURES)"; \
  } while (0)
