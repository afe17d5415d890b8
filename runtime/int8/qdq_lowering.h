// SPDX-License-Identifier: Apache-2.0
#pragma once

// Lowering of QDQ models (QuantizeLinear / DequantizeLinear around float ops, as
// runtime/quantize/quantizer.h and ONNX Runtime's quantize_static write them) to the engine's int8
// ops (runtime/ops/int8.cpp). An op whose float inputs all come from DequantizeLinear of int8
// tensors and whose output goes only into a QuantizeLinear becomes one int8 step reading and
// writing the int8 tensors; the Q/DQ nodes left over are the borders of FP32 islands and become
// float <-> int8 converts. uint8 tensors with zero point z become int8 with zero point z - 128.

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/engine/graph.h"
#include "runtime/int8/qdq_plan.h"

namespace yolo::runtime {

// A constant weight behind a DequantizeLinear, as stored in the file.
struct QuantizedWeight {
  std::shared_ptr<const Tensor> values;      // int8 or uint8
  std::shared_ptr<const Tensor> scale;       // float, one or per-axis
  std::shared_ptr<const Tensor> zero_point;  // may be null
  std::int64_t axis = 1;
};
// By the DequantizeLinear output's value id. Must run before infer_and_fold(), which folds these
// DequantizeLinear nodes into float constants (under the same value ids).
using QuantizedWeights = std::unordered_map<int, QuantizedWeight>;
QuantizedWeights collect_quantized_weights(const Graph& graph);

// The metadata_props key yolo-edge's quantizer writes into its files
// (runtime/quantize/quantizer.h).
inline constexpr const char* kOwnQuantizationKey = "yolo_edge_quantization";

struct QdqLoweringOptions {
  // Element-wise chains (runtime/int8/qdq_chain.h) pass the values of their inner Q/DQ pairs
  // through unrounded: set for yolo-edge's own files (runtime/quantize/quantizer.h), whose Q/DQ on
  // a SiLU's Sigmoid output only records its range, and whose SiLU is one table from the conv
  // output to the Mul output. Other files' chains run exactly as their Q/DQ nodes say.
  bool one_table_chains = false;
};

// Rewrites the shaped, folded graph (after infer_and_fold); nodes stay topologically sorted.
// Every element-wise op ending a chain on one int8 tensor becomes one table of the chain. With
// uint8_input the graph input becomes int8 NCHW-shaped (the engine fills it from the uint8
// image). With `layers`, also says per node what became of it, in topological order.
QdqLoweringStats lower_qdq(Graph& graph, const QuantizedWeights& weights,
                           const QdqLoweringOptions& options,
                           std::vector<QdqLayer>* layers = nullptr);

}  // namespace yolo::runtime
