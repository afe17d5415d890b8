#pragma once

// Lowering of QDQ models (QuantizeLinear / DequantizeLinear around float ops, as
// runtime/quantizer.h and ONNX Runtime's quantize_static write them) to the engine's int8 ops
// (runtime/ops/int8.cpp). An op whose float inputs all come from DequantizeLinear of int8
// tensors and whose output goes only into a QuantizeLinear becomes one int8 step reading and
// writing the int8 tensors; the Q/DQ nodes left over are the borders of FP32 islands and become
// float <-> int8 converts. uint8 tensors with zero point z become int8 with zero point z - 128.

#include <memory>
#include <unordered_map>

#include "runtime/graph.h"

namespace yolo::runtime {

// Whether the graph has any QuantizeLinear or DequantizeLinear node.
bool is_qdq_model(const Graph& graph);

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

struct QdqLoweringStats {
  int conv = 0;      // QConv steps
  int conv_act = 0;  // of which with a fused SiLU / sigmoid table
  int tables = 0;    // QLut steps (sigmoid, SiLU, requantization)
  int binary = 0;    // QBinary
  int maxpool = 0;
  int upsample = 0;
  int channel_ops = 0;       // Concat / Split / Slice running on int8
  int quantize = 0;          // float -> int8 converts left (FP32 island exits)
  int dequantize = 0;        // int8 -> float converts left (FP32 island entries)
  bool uint8_input = false;  // the model input is quantized from the uint8 image (xor 0x80)
};

// Rewrites the shaped, folded graph (after infer_and_fold); nodes stay topologically sorted.
// With uint8_input the graph input becomes int8 NCHW-shaped (the engine fills it from the uint8
// image).
QdqLoweringStats lower_qdq(Graph& graph, const QuantizedWeights& weights);

}  // namespace yolo::runtime
