// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "detector/detector.h"

namespace yolo::cli {

// The options every command that runs a model shares (--model, --precision, --imgsz, --profile),
// added to a subcommand once so detect and bench spell them the same way.
struct ModelOptions {
  std::string model;
  std::string precision = "fp32";
  // bench's --precision, a list (fp32,int8); `precision` is left alone then.
  std::vector<std::string> precisions{"fp32"};
  int imgsz = 0;
  bool profile = false;

  // `several_precisions`: --precision takes a comma-separated list into `precisions`.
  void add_to(CLI::App& sub, bool several_precisions = false);
  runtime::Precision parsed_precision() const;
};

// --imgsz, declared here once for every command that takes it, with the range and rule of the
// config's model.imgsz (config/schema.cpp): a multiple of 32 up to its maximum, 0 (the default)
// for the model's own size.
CLI::Option* add_imgsz_option(CLI::App& sub, int& imgsz,
                              const std::string& description =
                                  "Input size for models exported "
                                  "with dynamic axes");

}  // namespace yolo::cli
