// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <onnx/onnx_pb.h>

#include <cstddef>
#include <map>
#include <string>

namespace yolo::runtime {

// Raises an opset < 13 model to 13 (runtime/quantize/quantizer.h, the file format): Split's `split`
// attribute, Squeeze/Unsqueeze/ReduceSum `axes` attributes become int64 initializer inputs.
// `ranks` holds the rank of each Softmax (LogSoftmax, Hardmax) input, observed during
// calibration. Throws QuantizeError naming the node it cannot raise (one whose axis is not the
// last one: its meaning changed at 13).
void raise_to_opset13(onnx::ModelProto& model, const std::map<std::string, std::size_t>& ranks);

}  // namespace yolo::runtime
