// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include <opencv2/core.hpp>

#include "config/config.h"
#include "daemon/model/model_files.h"
#include "detector/detector.h"
#include "runtime/engine/input_size.h"

namespace yolo::daemon {

// Which model file runs, at which precision and input size: what a reload compares to decide
// whether to build.
struct ModelTarget {
  std::filesystem::path file;
  // kFp32 or kInt8: model.precision file resolved from the file.
  config::Precision precision = config::Precision::kFp32;
  // Resolved for the model: kFixed, or kModel for its own size.
  runtime::InputSize imgsz;
  std::filesystem::path labels;
  config::Decoder decoder = config::Decoder::kAuto;

  bool operator==(const ModelTarget&) const = default;
};

// "yolov8n.onnx (int8, 384x640)": a target as messages name it.
std::string describe(const ModelTarget& target);

// An FP32 model and an INT8 model of it: what precision auto measures against each other.
struct ModelPair {
  ModelTarget fp32;
  ModelTarget int8;

  bool operator==(const ModelPair&) const = default;
};

// How the daemon loads `target` (one engine thread; the pools and log are the caller's).
detector::DetectorOptions detector_options(const ModelTarget& target);

// What the manager does for one config.
struct Plan {
  // The FP32 model.
  ModelTarget fp32;
  // What should run now.
  ModelTarget run;
  // The INT8 file to make first (empty when nothing needs making).
  std::filesystem::path make;
  // Precision auto: the INT8 model to measure against FP32, once its file exists.
  std::optional<ModelTarget> candidate;
  // The INT8 model of model.path when its file exists (model.int8_path, a static INT8 model.path,
  // or one quantize: auto made), whatever the precision: what the INT8 checks judge against fp32.
  std::optional<ModelTarget> int8;
};

// What the plan depends on besides the config and the files.
struct PlanContext {
  // Where INT8 models made here are written when model.int8_path is empty.
  std::filesystem::path int8_dir;
  // The size of the camera's frames, empty before the first: what imgsz auto sizes the input for.
  cv::Size frame;
  // The pair precision auto chose INT8 for, if it did: auto then runs that INT8 model.
  std::optional<ModelPair> int8_chosen;
};

// Precision int8 and auto both want an INT8 model.
bool wants_int8(config::Precision precision);

// model.imgsz resolved for model.path and, for auto, `frame` (the model's own size while `frame`
// is empty). Throws runtime::ModelError for a size the model cannot take.
runtime::InputSize input_size(const config::ModelConfig& model, cv::Size frame, ModelFiles& files);

// The file quantize: auto writes for `model`: model.int8_path, or a name in `int8_dir` made from
// the FP32 file's name, a hash of its contents and the input size, so an edited model is
// quantized again.
std::filesystem::path made_int8_path(const config::ModelConfig& model,
                                     const runtime::InputSize& imgsz,
                                     const std::filesystem::path& int8_dir, ModelFiles& files);

// What should run for `model`, and what must be made or measured first. Reads nothing but what
// `files` answers.
Plan plan_model(const config::ModelConfig& model, const PlanContext& context, ModelFiles& files);

}  // namespace yolo::daemon
