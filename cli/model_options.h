#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "detector/detector.h"

namespace yolo::cli {

// The options every command that runs a model shares (--model, --precision, --threads, --imgsz),
// added to a subcommand once so detect and bench spell them the same way.
struct ModelOptions {
  std::string model;
  std::string precision = "fp32";
  int imgsz = 0;
  bool profile = false;

  void add_to(CLI::App& sub);
  runtime::Precision parsed_precision() const;
};

}  // namespace yolo::cli
