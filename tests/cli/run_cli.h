// SPDX-License-Identifier: Apache-2.0
#pragma once

// Runs the built yolo-edge binary and captures what a user would see.
#include <gtest/gtest.h>

#include <filesystem>
#include <initializer_list>
#include <source_location>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/fixtures.h"
#include "tests/support/run_process.h"

namespace yolo::test {

using CliResult = ProcessResult;

// Runs `yolo-edge args...` without a shell.
inline CliResult run_cli(const std::vector<std::string>& args) {
  std::vector<std::string> argv{cli_path().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(std::move(argv));
}

// A fixture model as the CLI takes it: fixture_model("yolo11n_320_fp32") is
// <fixtures>/models/yolo11n_320_fp32.onnx.
inline std::string fixture_model(const std::string& name) {
  return (fixtures_dir() / "models" / (name + ".onnx")).string();
}

// The whole of a file the CLI wrote ("" when it cannot be read).
inline std::string file_text(const std::filesystem::path& path) {
  return detail::slurp(path);
}

// Expects every one of `parts` in `text` (what the CLI printed or wrote); a failure names the
// part missing, shows the text and points at the caller.
inline void expect_contains_all(const std::string& text, std::initializer_list<std::string> parts,
                                std::source_location where = std::source_location::current()) {
  const ::testing::ScopedTrace trace(where.file_name(), static_cast<int>(where.line()),
                                     "expect_contains_all");
  for (const std::string& part : parts) {
    EXPECT_TRUE(contains(text, part)) << "no \"" << part << "\" in:\n" << text;
  }
}

}  // namespace yolo::test
