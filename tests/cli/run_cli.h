// SPDX-License-Identifier: Apache-2.0
#pragma once

// Runs the built yolo-edge binary and captures what a user would see.
#include <filesystem>
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

}  // namespace yolo::test
