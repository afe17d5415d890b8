// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/calibration.h"
#include "runtime/engine.h"
#include "runtime/quantize/calibrate.h"

namespace yolo::runtime {

// The int8 noise of candidate rewrites at the final convs' outputs (as their consumers see them),
// against the FP32 model on the held calibration frames. Class logits (a final conv with one
// channel per class name) are compared as scores, after the sigmoid the tail applies: noise on a
// logit of -20 changes nothing, on a logit near 0 it changes the detection.
class NoiseMeter {
 public:
  // `raised`: the model at opset >= 13 that build_qdq_model() rewrites with `ranges`; `fp32`
  // observes the final convs' outputs. Each candidate is loaded from a temporary file named after
  // `beside`.
  NoiseMeter(const onnx::ModelProto& raised, const std::map<std::string, ActivationRange>& ranges,
             const std::vector<std::string>& final_convs, ObservingEngine& fp32,
             const Calibration& calib, const std::filesystem::path& beside,
             const EngineOptions& engine_options);

  // The final convs' output tensors, in final_convs order.
  const std::vector<std::string>& outputs() const { return outputs_; }
  // SQNR in dB at each final conv's output with the nodes in `keep` FP32.
  std::vector<double> sqnr_db(const std::set<std::string>& keep) const;
  // The mean noise-to-signal ratio over the final convs with the nodes in `keep` FP32.
  double noise_ratio(const std::set<std::string>& keep) const;

 private:
  const onnx::ModelProto& raised_;
  const std::map<std::string, ActivationRange>& ranges_;
  const Calibration& calib_;
  const std::filesystem::path beside_;
  const EngineOptions engine_options_;
  InputLayout fp32_layout_;
  int width_ = 0;
  int height_ = 0;
  std::vector<std::string> outputs_;
  std::size_t final_conv_count_ = 0;
  // Per output: compared as scores (after a sigmoid).
  std::vector<bool> scores_;
  // [frame][output]: the FP32 values.
  std::vector<std::vector<std::vector<float>>> reference_;
};

}  // namespace yolo::runtime
