// SPDX-License-Identifier: Apache-2.0
#include "runtime/int8/qoperator.h"

namespace yolo::runtime {

bool is_qoperator(const std::string& domain, const std::string& op_type) {
  const bool known_domain = domain.empty() || domain == "ai.onnx" || domain == "com.microsoft";
  return known_domain && (op_type.starts_with("QLinear") || op_type == "QGemm");
}

std::string qoperator_advice() {
  return "QOperator INT8 (onnxruntime quantize_static with quant_format=QOperator) does not run "
         "in yolo-edge; make a QDQ model from the FP32 one with `yolo-edge quantize --model "
         "FP32.onnx --calib SRC --out MODEL.int8.onnx`, or export QDQ "
         "(quant_format=QuantFormat.QDQ)";
}

void reject_qoperator(const Graph& graph) {
  const Node* first = nullptr;
  int count = 0;
  for (const auto& node : graph.nodes) {
    if (!is_qoperator(node.domain, node.op_type)) continue;
    if (!first) first = &node;
    ++count;
  }
  if (!first) return;
  graph.fail(*first, "is a QOperator INT8 operator (" + std::to_string(count) +
                         " in this model): " + qoperator_advice());
}

}  // namespace yolo::runtime
