// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "runtime/model/model_metadata.h"
#include "runtime/model/onnx_model.h"

namespace yolo::runtime {

// How a model's arithmetic is quantized, judged from its operators.
enum class QuantizationKind {
  kNone,       // float throughout
  kDynamic,    // DynamicQuantizeLinear + ConvInteger/MatMulInteger: activations quantized per run
  kStaticQdq,  // QuantizeLinear/DequantizeLinear pairs around float operators
  kQOperator,  // quantized operators proper: QLinearConv, QLinearMatMul, QGemm, ...
};
// "none", "dynamic", "static QDQ", "QOperator".
const char* to_string(QuantizationKind kind);

// A graph input or output as declared in the file.
struct ValueInfo {
  std::string name;
  std::string element_type;  // "float32", "uint8", ...; "?" when undeclared
  // One entry per dimension: its size ("640"), the name of a dynamic one ("batch"), or "?".
  std::vector<std::string> dims;
  bool has_shape = false;
};

// Everything `yolo-edge inspect` reports about a model. Inspection never throws for content it
// can describe: what is wrong with the graph goes into `problems`, each naming the node, value or
// initializer concerned.
struct ModelInfo {
  std::filesystem::path path;
  std::uintmax_t file_size = 0;
  std::int64_t ir_version = 0;
  ModelMetadata metadata;
  // Opsets imported by domain ("" is the default ai.onnx domain).
  std::map<std::string, std::int64_t> opsets;
  std::vector<ValueInfo> inputs;  // initializers listed as inputs (IR < 4) left out
  std::vector<ValueInfo> outputs;
  std::size_t node_count = 0;
  // Nodes per operator: "Conv", or "domain.Op" outside the default domain.
  std::map<std::string, std::size_t> op_counts;
  std::size_t initializer_count = 0;
  // Elements of every initializer and Constant node tensor.
  std::int64_t parameter_count = 0;
  QuantizationKind quantization = QuantizationKind::kNone;
  std::size_t dynamic_quantize_count = 0;  // DynamicQuantizeLinear nodes
  std::size_t integer_op_count = 0;        // ConvInteger + MatMulInteger nodes
  std::size_t qdq_count = 0;               // QuantizeLinear + DequantizeLinear nodes
  std::size_t qoperator_count = 0;         // QLinear* and QGemm nodes
  // Float16 in the file (FP16 exports, Cast to float16), which the engine computes in FP32.
  std::size_t float16_initializers = 0;  // initializers and Constant nodes holding float16
  std::size_t float16_casts = 0;         // Cast nodes to float16
  bool float16_input = false;            // a graph input declared float16
  bool float16_output = false;           // a graph output declared float16
  std::vector<std::string> problems;

  bool float16() const {
    return float16_initializers + float16_casts > 0 || float16_input || float16_output;
  }
  // What the engine runs the file at when no precision is asked for: "int8" for static QDQ INT8,
  // "fp32" for every other kind.
  const char* file_precision() const;

  std::size_t count(const std::string& op) const;
};

ModelInfo inspect_model(const OnnxModel& model);

// A node's operator as inspect names it: "Conv", or "domain.Op" outside the default domain.
std::string op_name(const onnx::NodeProto& node);

}  // namespace yolo::runtime
