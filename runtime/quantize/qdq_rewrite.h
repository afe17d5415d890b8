// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <set>
#include <string>

#include "runtime/calibration.h"

namespace yolo::runtime {

// The QDQ rewrite that writes the file format of runtime/quantizer.h, of a model at opset >= 13
// with named nodes. `ranges` must hold every tensor of quantized_tensors() except the model
// input; nodes named in `keep_fp32` stay float. Throws QuantizeError when a range is missing or
// the opset is below 13.
onnx::ModelProto build_qdq_model(const onnx::ModelProto& fp32,
                                 const std::map<std::string, ActivationRange>& ranges,
                                 const std::set<std::string>& keep_fp32);

}  // namespace yolo::runtime
