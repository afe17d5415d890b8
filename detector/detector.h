// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <memory>
#include <optional>

#include <opencv2/core.hpp>

#include "runtime/engine/engine.h"
#include "vision/class_names.h"
#include "vision/decode.h"
#include "vision/letterbox.h"

namespace yolo::detector {

// What a Detector is built from: the model, how to run it, and how to read its output.
struct DetectorOptions {
  std::filesystem::path model;
  // How the engine loads it. imgsz: for models with dynamic input axes; kAuto with the source's
  // frame size (or none yet, then the model's own size until adapt_to() sees a frame).
  runtime::EngineOptions engine;
  vision::DecodeOptions decode;
  std::filesystem::path labels;  // used when the model carries no class names
  // Every frame moved by an invisible +-1 grey level (vision::Letterboxer::set_dither): for
  // measuring a model's stability (`compare --floor`), never for detection.
  bool dither = false;
};

// Time spent on each step of the last detect() call, in milliseconds.
struct DetectTimings {
  double preprocess_ms = 0;
  double inference_ms = 0;
  double postprocess_ms = 0;
  double total() const { return preprocess_ms + inference_ms + postprocess_ms; }
};

// One frame in, detections in frame pixels out: letterbox straight into the engine's input, run
// the engine, decode its first output and apply NMS. Owns its engine; not thread-safe.
class Detector {
 public:
  // Throws runtime::ModelError (bad model), vision::LabelsError or vision::DecodeError.
  explicit Detector(const DetectorOptions& options);

  vision::Detections detect(const cv::Mat& bgr, DetectTimings* timings = nullptr);

  // imgsz auto: the input size frames of `frame` size call for. When it is not the one loaded,
  // the engine is loaded again at that size (a model load: the CLI's commands call this per
  // frame; the daemon builds the new detector beside the running one instead). Returns whether
  // it reloaded; throws what the constructor throws.
  bool adapt_to(cv::Size frame);
  // Whether frames of `frame` size run at the input imgsz auto gives them (always for the other
  // imgsz settings).
  bool fits(cv::Size frame) const;

  // New thresholds, classes and limits from the next detect() on; the decoder stays the one
  // chosen for this model.
  void set_decode(const vision::DecodeOptions& decode);

  runtime::Engine& engine() { return *engine_; }
  const runtime::Engine& engine() const { return *engine_; }
  const vision::ClassNames& names() const { return names_; }
  vision::DecoderKind decoder() const { return decoder_; }
  const DetectorOptions& options() const { return options_; }

 private:
  void load();

  DetectorOptions options_;
  std::unique_ptr<runtime::Engine> engine_;
  vision::ClassNames names_;
  std::optional<vision::Letterboxer> letterboxer_;
  vision::DecoderKind decoder_ = vision::DecoderKind::kAuto;
};

// The vision layout matching what the engine asks for.
vision::TensorLayout tensor_layout(runtime::InputLayout layout);

}  // namespace yolo::detector
