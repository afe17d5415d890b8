// SPDX-License-Identifier: Apache-2.0
#pragma once

// The parts of `yolo-edge quantize --report` read back from the written model.

#include <onnx/onnx_pb.h>

#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/quantize/calibration.h"
#include "runtime/quantize/regions.h"

namespace yolo::runtime {

// Per quantized activation of `quantized` (rewritten from `raised` with `keep` FP32): its
// calibrated min and max, the range used (and why it was refined), and the scale and zero point
// written.
nlohmann::json activations_report(const onnx::ModelProto& quantized, const onnx::GraphProto& raised,
                                  const std::set<std::string>& keep,
                                  const std::map<std::string, TensorStatistics>& stats,
                                  const std::map<std::string, ActivationRange>& ranges,
                                  const std::map<std::string, std::string>& refined);

// Per int8 conv of `quantized`: its channel count and the smallest and largest weight scale.
nlohmann::json weights_report(const onnx::ModelProto& quantized);

// Per node kept FP32: its op (from `graph`) and why.
nlohmann::json kept_report(const onnx::GraphProto& graph, const KeepReasons& keep);

}  // namespace yolo::runtime
