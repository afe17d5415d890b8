// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/graph_index.h"

#include "runtime/int8/int8_operators.h"
#include "runtime/quantize/onnx_proto.h"

namespace yolo::runtime {

GraphIndex index_graph(const onnx::GraphProto& graph) {
  GraphIndex index;
  for (const auto& init : graph.initializer()) {
    index.initializers[init.name()] = &init;
    index.constants.insert(init.name());
    if (!is_float_type(init.data_type())) index.non_float.insert(init.name());
  }
  for (const auto& in : graph.input()) {
    if (index.initializers.count(in.name())) continue;
    if (index.input.empty()) index.input = in.name();
    if (!is_float_type(in.type().tensor_type().elem_type())) index.non_float.insert(in.name());
  }
  for (const auto& out : graph.output()) index.outputs.insert(out.name());
  static const std::set<std::string> kIntegerResults = {"Shape", "Size", "NonZero", "ArgMax",
                                                        "ArgMin"};
  static const std::set<std::string> kBoolResults = {
      "Equal", "Less", "Greater", "Not", "And", "Or", "LessOrEqual", "GreaterOrEqual"};
  for (int n = 0; n < graph.node_size(); ++n) {
    const auto& node = graph.node(n);
    for (const auto& in : node.input()) {
      if (!in.empty()) index.consumers[in].push_back(n);
    }
    for (const auto& out : node.output()) index.producer[out] = n;
    const std::string& op = node.op_type();
    // Types flow forward from the first data input; these are the ops that change them.
    bool float_out = true;
    if (op == "Constant") {
      for (const auto& out : node.output()) index.constants.insert(out);
      const auto* value = find_attr(node, "value");
      float_out = value && is_float_type(value->t().data_type());
    } else if (kIntegerResults.count(op) || kBoolResults.count(op)) {
      float_out = false;
    } else if (op == "Cast") {
      const auto* to = find_attr(node, "to");
      float_out = to && is_float_type(static_cast<int>(to->i()));
    } else {
      const int data = op == "Where" ? 1 : 0;
      float_out = node.input_size() > data && !index.non_float.count(node.input(data));
    }
    for (int k = 0; k < node.output_size(); ++k) {
      const bool topk_indices = op == "TopK" && k == 1;
      if (!float_out || topk_indices) index.non_float.insert(node.output(k));
    }
  }
  return index;
}

const onnx::NodeProto* producer_of(const onnx::GraphProto& graph, const GraphIndex& index,
                                   const std::string& tensor) {
  auto it = index.producer.find(tensor);
  return it == index.producer.end() ? nullptr : &graph.node(it->second);
}

bool has_float_weights(const onnx::NodeProto& node, const GraphIndex& index) {
  if (node.op_type() != "Conv" || node.input_size() < 2) return false;
  auto it = index.initializers.find(node.input(1));
  return it != index.initializers.end() && is_float_type(it->second->data_type()) &&
         it->second->dims_size() >= 3;
}

const onnx::NodeProto* source_past_layout(const onnx::GraphProto& graph, const GraphIndex& index,
                                          const std::string& tensor) {
  static const std::set<std::string> kMovers = {"Reshape",   "Transpose", "Split",   "Squeeze",
                                                "Unsqueeze", "Flatten",   "Identity"};
  const onnx::NodeProto* p = producer_of(graph, index, tensor);
  while (p && kMovers.count(p->op_type())) p = producer_of(graph, index, p->input(0));
  return p;
}

bool is_dfl_conv(const onnx::GraphProto& graph, const GraphIndex& index,
                 const onnx::NodeProto& node) {
  if (node.op_type() != "Conv") return false;
  const onnx::NodeProto* p = source_past_layout(graph, index, node.input(0));
  return p && p->op_type() == "Softmax";
}

bool is_real_conv(const onnx::GraphProto& graph, const GraphIndex& index,
                  const onnx::NodeProto& node) {
  return has_float_weights(node, index) && !is_dfl_conv(graph, index, node);
}

bool is_silu_mul(const onnx::GraphProto& graph, const GraphIndex& index,
                 const onnx::NodeProto& node) {
  if (node.op_type() != "Mul" || node.input_size() != 2) return false;
  for (int k = 0; k < 2; ++k) {
    const onnx::NodeProto* s = producer_of(graph, index, node.input(k));
    if (s && s->op_type() == "Sigmoid" && s->input(0) == node.input(1 - k)) return true;
  }
  return false;
}

std::optional<QuantIo> quant_io(const onnx::GraphProto& graph, const GraphIndex& index,
                                const onnx::NodeProto& node) {
  const std::string& op = node.op_type();
  const Int8Support* spec = find_int8_operator(op);
  if (!spec || spec->quantized_inputs == QuantizedInputs::kNone) return std::nullopt;
  if ((op == "Conv" && !is_real_conv(graph, index, node)) ||
      (op == "Mul" && !is_silu_mul(graph, index, node))) {
    return std::nullopt;
  }
  QuantIo io;
  if (spec->quantized_inputs == QuantizedInputs::kFirst) {
    if (!index.is_activation(node.input(0))) return std::nullopt;
    io.inputs = {node.input(0)};
  } else {
    for (const auto& in : node.input()) {
      if (!index.is_activation(in)) return std::nullopt;
    }
    if (node.input_size() == 0) return std::nullopt;
    io.inputs.assign(node.input().begin(), node.input().end());
  }
  io.shares_scale = spec->shares_scale;
  // MaxPool's second output is its int64 indices.
  const int outputs = op == "MaxPool" ? 1 : node.output_size();
  for (int k = 0; k < outputs; ++k) {
    if (!index.is_activation(node.output(k))) return std::nullopt;
    io.outputs.push_back(node.output(k));
  }
  return io;
}

std::vector<std::string> quantized_tensors(const onnx::GraphProto& graph,
                                           const std::set<std::string>& keep_fp32) {
  const GraphIndex index = index_graph(graph);
  std::vector<std::string> tensors;
  std::set<std::string> seen;
  auto add = [&](const std::string& t) {
    if (seen.insert(t).second) tensors.push_back(t);
  };
  for (const auto& node : graph.node()) {
    if (keep_fp32.count(node.name())) continue;
    const auto io = quant_io(graph, index, node);
    if (!io) continue;
    for (const auto& t : io->inputs) add(t);
    for (const auto& t : io->outputs) add(t);
  }
  return tensors;
}

void name_unnamed_nodes(onnx::GraphProto& graph) {
  for (int n = 0; n < graph.node_size(); ++n) {
    auto* node = graph.mutable_node(n);
    if (node->name().empty()) node->set_name(node->op_type() + "_" + std::to_string(n));
  }
}

}  // namespace yolo::runtime
