// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "runtime/engine/engine.h"
#include "runtime/quantize/calibrate.h"
#include "runtime/quantize/calibration.h"
#include "runtime/quantize/qdq_rewrite.h"

namespace yolo::runtime {

// Judges how well a candidate's detections agree with FP32's on the held frames (the caller
// decodes: runtime/ knows no boxes). Figures are fractions (AP50, say); higher agrees better.
class OutputJudge {
 public:
  virtual ~OutputJudge() = default;
  // FP32's first output on held frame `frame`: the truth.
  virtual void set_truth(std::size_t frame, const Tensor& output) = 0;
  // The candidate's first output on held frame `frame` (frames in order, each once per candidate).
  virtual void add(std::size_t frame, const Tensor& output) = 0;
  // The agreement over the frames added since the last call (empty: nothing to judge, e.g. FP32
  // detected nothing); starts the next candidate.
  virtual std::optional<double> finish() = 0;
  // What finish() measures, for logs: "AP50".
  virtual std::string what() const = 0;
};

// What one candidate rewrite measured on the held frames.
struct Measurement {
  // Per final conv, its output's SQNR in dB.
  std::vector<double> sqnr_db;
  // The mean noise-to-signal ratio over the final convs.
  double noise = 0;
  double noise_db() const;
  // The int8 engine's fastest held frame, in ms (1 thread unless the engine options say
  // otherwise), and the ms of each of its nodes in that frame (where the tail's time goes).
  double frame_ms = 0;
  // The judge's figure, when there is a judge and something to judge.
  std::optional<double> agreement;
  std::map<std::string, double> node_ms;
};

// Per anchor (position) of class logits [classes, positions], the best class's score (after the
// sigmoid): how much a box predicted at that position can matter.
std::vector<float> anchor_confidence(std::span<const float> logits, std::size_t classes);

// One output's signal and noise power, summed over frames.
struct NoiseSums {
  double signal = 0;
  double noise = 0;
};

// Adds one frame of one output (channel-major [channels, positions]) to `sums`: class logits
// (`scores`) after the sigmoid; each position weighted by `weights` (one per position; empty:
// all 1).
void add_noise(std::span<const float> reference, std::span<const float> candidate, bool scores,
               std::span<const float> weights, NoiseSums& sums);

// The int8 noise of candidate rewrites at the final convs' outputs (as their consumers see them),
// against the FP32 model on the held calibration frames, with each candidate's speed. Class
// logits (a final conv with one channel per class name) are compared as scores, after the sigmoid
// the tail applies: noise on a logit of -20 changes nothing, on a logit near 0 it changes the
// detection. A box output's positions are weighted by FP32's anchor_confidence() at that position
// (the class output of the same grid): a box where nothing is detected is never drawn, and the
// background's boxes, most of the grid, would otherwise make most of the noise measured.
class NoiseMeter {
 public:
  // `raised`: the model at opset >= 13 that build_qdq_model() rewrites with `ranges` and `plan`
  // (both read at each measurement); `fp32` observes the final convs' outputs. Each candidate is
  // loaded from a temporary file named after `beside`. `judge` may be null.
  NoiseMeter(const onnx::ModelProto& raised, const std::map<std::string, ActivationRange>& ranges,
             const WeightPlan& plan, const std::vector<std::string>& final_convs,
             ObservingEngine& fp32, const Calibration& calib, const std::filesystem::path& beside,
             const EngineOptions& engine_options, OutputJudge* judge);

  // What the judge's figures are ("AP50"); "agreement" without a judge.
  std::string agreement_name() const { return judge_ ? judge_->what() : "agreement"; }
  // The final convs' output tensors, in final_convs order.
  const std::vector<std::string>& outputs() const { return outputs_; }
  // The rewrite with the nodes in `keep` FP32, run on every held frame.
  Measurement measure(const std::set<std::string>& keep) const;
  // measure(keep).sqnr_db and .noise.
  std::vector<double> sqnr_db(const std::set<std::string>& keep) const;
  double noise_ratio(const std::set<std::string>& keep) const;

 private:
  const onnx::ModelProto& raised_;
  const std::map<std::string, ActivationRange>& ranges_;
  const WeightPlan& plan_;
  const Calibration& calib_;
  const std::filesystem::path beside_;
  const EngineOptions engine_options_;
  OutputJudge* judge_;
  InputLayout fp32_layout_;
  int width_ = 0;
  int height_ = 0;
  std::vector<std::string> outputs_;
  std::size_t final_conv_count_ = 0;
  // Per output: compared as scores (after a sigmoid).
  std::vector<bool> scores_;
  // [frame][output]: the FP32 values, and FP32's anchor_confidence() per position for the box
  // outputs weighed by a class output (empty otherwise).
  std::vector<std::vector<std::vector<float>>> reference_;
  std::vector<std::vector<std::vector<float>>> weights_;
};

}  // namespace yolo::runtime
