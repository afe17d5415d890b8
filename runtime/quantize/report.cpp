// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/report.h"

#include <algorithm>
#include <cstdint>

#include "runtime/quantize/graph_index.h"
#include "runtime/quantize/onnx_proto.h"

namespace yolo::runtime {

namespace {

std::map<std::string, const onnx::TensorProto*> initializers_of(const onnx::ModelProto& model) {
  std::map<std::string, const onnx::TensorProto*> written;
  for (const auto& init : model.graph().initializer()) written[init.name()] = &init;
  return written;
}

std::map<std::string, const onnx::NodeProto*> producers_of(const onnx::ModelProto& model) {
  std::map<std::string, const onnx::NodeProto*> producers;
  for (const auto& n : model.graph().node()) {
    for (const auto& o : n.output()) producers[o] = &n;
  }
  return producers;
}

}  // namespace

nlohmann::json activations_report(const onnx::ModelProto& quantized, const onnx::GraphProto& raised,
                                  const std::set<std::string>& keep,
                                  const std::map<std::string, TensorStatistics>& stats,
                                  const std::map<std::string, ActivationRange>& ranges,
                                  const std::map<std::string, std::string>& refined) {
  const auto written = initializers_of(quantized);
  const auto producers = producers_of(quantized);
  // Each activation's QuantizeLinear: reading it (graph input, outputs) or feeding the
  // DequantizeLinear that takes over its name.
  std::map<std::string, const onnx::NodeProto*> quantize_nodes;
  for (const auto& n : quantized.graph().node()) {
    if (n.op_type() == "QuantizeLinear") quantize_nodes[n.input(0)] = &n;
  }
  nlohmann::json activations = nlohmann::json::array();
  for (const auto& t : quantized_tensors(raised, keep)) {
    const onnx::NodeProto* qn = quantize_nodes.count(t) ? quantize_nodes.at(t) : nullptr;
    if (!qn && producers.count(t) && producers.at(t)->op_type() == "DequantizeLinear") {
      qn = producers.at(producers.at(t)->input(0));
    }
    if (!qn) continue;
    nlohmann::json a = {{"tensor", t}};
    if (auto it = stats.find(t); it != stats.end()) {
      a["min"] = it->second.min();
      a["max"] = it->second.max();
      a["range"] = {ranges.at(t).lo, ranges.at(t).hi};
      if (auto r = refined.find(t); r != refined.end()) a["refined"] = r->second;
    }
    a["scale"] = read_floats(*written.at(qn->input(1))).at(0);
    a["zero_point"] =
        static_cast<int>(static_cast<std::int8_t>(written.at(qn->input(2))->raw_data().at(0)));
    activations.push_back(a);
  }
  return activations;
}

nlohmann::json weights_report(const onnx::ModelProto& quantized) {
  const auto written = initializers_of(quantized);
  const auto producers = producers_of(quantized);
  nlohmann::json weights = nlohmann::json::array();
  for (const auto& n : quantized.graph().node()) {
    if (n.op_type() != "Conv" || n.input_size() < 2 || !producers.count(n.input(1))) continue;
    const onnx::NodeProto& dq = *producers.at(n.input(1));
    if (dq.op_type() != "DequantizeLinear" || dq.input_size() < 2) continue;
    const std::vector<float> s = read_floats(*written.at(dq.input(1)));
    weights.push_back({{"node", n.name()},
                       {"channels", s.size()},
                       {"scale_min", *std::min_element(s.begin(), s.end())},
                       {"scale_max", *std::max_element(s.begin(), s.end())}});
  }
  return weights;
}

nlohmann::json kept_report(const onnx::GraphProto& graph, const KeepReasons& keep) {
  nlohmann::json kept = nlohmann::json::array();
  for (const auto& [n, why] : keep) {
    std::string op;
    for (const auto& node : graph.node()) {
      if (node.name() == n) op = node.op_type();
    }
    kept.push_back({{"node", n}, {"op", op}, {"reason", why}});
  }
  return kept;
}

}  // namespace yolo::runtime
