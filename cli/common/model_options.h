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
  // "" (not given): the file's own precision (int8 for a static INT8 file, else fp32).
  std::string precision;
  // bench's --precision, a list (fp32,int8); `precision` is left alone then. Empty when not
  // given.
  std::vector<std::string> precisions;
  runtime::InputSize imgsz;
  bool profile = false;

  // `several_precisions`: --precision takes a comma-separated list into `precisions`.
  void add_to(CLI::App& sub, bool several_precisions = false);
  runtime::Precision parsed_precision() const;
  // What a command that runs `model` on frames (detect, track) builds its detector from: these
  // options at `threads`, the engine's messages on stderr, and imgsz auto sized for `first` (the
  // source's first frame; none: left as it is). Decoding stays at its defaults.
  detector::DetectorOptions detector_options(const std::string& model, int threads,
                                             const cv::Mat& first) const;
};

// How detect and track run the model over a source (--frames, --conf, --iou, --threads): one
// struct so both take these options with the same defaults, checks and order.
struct FrameRunOptions {
  long frames = 0;
  float conf = 0.25f;
  float iou = 0.45f;
  int threads = 1;

  // `conf_help`: what the score threshold does in this command.
  void add_to(CLI::App& sub, const std::string& conf_help);
  // Whether to go on to another frame after `count` of them (--frames 0: to the source's end).
  bool wants(long count) const { return frames <= 0 || count < frames; }
};

// --imgsz, declared here once for every command that takes it, with the range and rule of the
// config's model.imgsz (config/sections/model.cpp): 640, 384,640 (height, width), auto (the
// source's aspect), or 0 (the default) for the model's own size.
CLI::Option* add_imgsz_option(CLI::App& sub, runtime::InputSize& imgsz,
                              const std::string& description =
                                  "Input size for models exported with dynamic axes: 640, "
                                  "HEIGHT,WIDTH (384,640) or auto (the source's aspect, the long "
                                  "side as exported)",
                              const std::string& name = "--imgsz");

// A score or IoU threshold, a share from 0 to 1, with its default in --help (--conf, --iou).
CLI::Option* add_threshold_option(CLI::App& sub, const std::string& name, float& threshold,
                                  const std::string& description);

// --threads,-t: inference threads from 1 to 256, with its default in --help.
CLI::Option* add_threads_option(CLI::App& sub, int& threads, const std::string& description);

// --labels: a class names file for a model that has none.
CLI::Option* add_labels_option(CLI::App& sub, std::string& labels);

// What --precision options accept: fp32 and int8 (not given: the file's own).
std::vector<std::string> precision_choices();
// The precision an option's value names; kFile for "" (not given). std::invalid_argument for
// a name the option's check would have refused.
runtime::Precision precision_option(const std::string& name);

}  // namespace yolo::cli
