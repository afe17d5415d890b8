// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/opset13.h"

#include <cstdint>
#include <vector>

#include "runtime/quantize/error.h"
#include "runtime/quantize/onnx_proto.h"

namespace yolo::runtime {

namespace {

// Moves attribute `key` of a Squeeze, Unsqueeze, ReduceSum or Split into an int64 initializer
// read as its second input: at opset 12 these ops have their data input only.
void attribute_to_input(onnx::GraphProto& graph, onnx::NodeProto& node, const std::string& key) {
  auto* attrs = node.mutable_attribute();
  for (int a = 0; a < attrs->size(); ++a) {
    if (attrs->Get(a).name() != key) continue;
    const std::vector<std::int64_t> values(attrs->Get(a).ints().begin(),
                                           attrs->Get(a).ints().end());
    const std::string name = node.name() + "_" + key;
    *graph.add_initializer() = make_tensor(name, onnx::TensorProto::INT64,
                                           {static_cast<std::int64_t>(values.size())}, values);
    node.add_input(name);
    attrs->DeleteSubrange(a, 1);
    return;
  }
}

// Whether a Softmax-like node's axis is the last one of its input (of rank `rank`, when known).
bool axis_is_last(const onnx::NodeProto& node, const std::size_t* rank) {
  const auto* axis_attr = find_attr(node, "axis");
  const std::int64_t axis = axis_attr ? axis_attr->i() : 1;
  if (axis == -1) return true;
  if (!rank) return false;
  const auto r = static_cast<std::int64_t>(*rank);
  return (axis + r) % r == r - 1;
}

}  // namespace

void raise_to_opset13(onnx::ModelProto& model, const std::map<std::string, std::size_t>& ranks) {
  const int opset = default_opset(model);
  if (opset >= 13) return;
  auto* graph = model.mutable_graph();
  for (auto& node : *graph->mutable_node()) {
    const std::string& op = node.op_type();
    if (op == "Squeeze" || op == "Unsqueeze" || op == "ReduceSum" || op == "Split") {
      attribute_to_input(*graph, node, op == "Split" ? "split" : "axes");
    } else if (op == "Softmax" || op == "LogSoftmax" || op == "Hardmax") {
      const auto it = ranks.find(node.input(0));
      if (!axis_is_last(node, it == ranks.end() ? nullptr : &it->second)) {
        throw QuantizeError("node " + node.name() + " (" + op + ", opset " + std::to_string(opset) +
                            "): its axis is not the last one, so its meaning changes at opset 13, "
                            "which QDQ per-channel weights need; re-export at opset >= 13");
      }
    }
  }
  for (auto& op : *model.mutable_opset_import()) {
    if (op.domain().empty() || op.domain() == "ai.onnx") op.set_version(13);
  }
}

}  // namespace yolo::runtime
