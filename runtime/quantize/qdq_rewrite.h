// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <set>
#include <string>

#include "runtime/quantize/calibration.h"
#include "runtime/quantize/weights.h"

namespace yolo::runtime {

// How the weights are quantized where round-to-nearest is not the choice.
struct WeightPlan {
  // Per weight initializer: its int8 values and channel scales (round to nearest when absent).
  std::map<std::string, Int8Weights> weights;
  // Per conv node: added to its float bias before the bias becomes int32 (bias correction).
  std::map<std::string, std::vector<float>> bias_shift;
};

// The QDQ rewrite that writes the file format of runtime/quantize/quantizer.h, of a model at opset
// >= 13 with named nodes. `ranges` must hold every tensor of quantized_tensors() except the model
// input; nodes named in `keep_fp32` stay float. Throws QuantizeError when a range is missing or
// the opset is below 13.
onnx::ModelProto build_qdq_model(const onnx::ModelProto& fp32,
                                 const std::map<std::string, ActivationRange>& ranges,
                                 const std::set<std::string>& keep_fp32,
                                 const WeightPlan& plan = {});

}  // namespace yolo::runtime
