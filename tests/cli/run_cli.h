#pragma once

// Runs the built yolo-edge binary and captures what a user would see.
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

}  // namespace yolo::test
