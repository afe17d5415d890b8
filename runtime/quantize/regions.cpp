// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/regions.h"

#include <algorithm>

#include "runtime/quantize/graph_index.h"

namespace yolo::runtime {

GraphRegions find_regions(const onnx::GraphProto& graph) {
  const GraphIndex index = index_graph(graph);
  const int n = graph.node_size();
  std::vector<bool> real_conv(static_cast<std::size_t>(n)), from_input(static_cast<std::size_t>(n));
  std::set<std::string> reached = {index.input};
  for (int i = 0; i < n; ++i) {
    const auto& node = graph.node(i);
    real_conv[static_cast<std::size_t>(i)] = is_real_conv(graph, index, node);
    for (const auto& in : node.input()) {
      if (reached.count(in)) from_input[static_cast<std::size_t>(i)] = true;
    }
    if (from_input[static_cast<std::size_t>(i)]) {
      for (const auto& out : node.output()) reached.insert(out);
    }
  }
  // ONNX nodes are in topological order: one backward sweep finds what a real conv follows.
  std::vector<bool> conv_below(static_cast<std::size_t>(n));
  for (int i = n - 1; i >= 0; --i) {
    for (const auto& out : graph.node(i).output()) {
      auto it = index.consumers.find(out);
      if (it == index.consumers.end()) continue;
      for (int c : it->second) {
        if (real_conv[static_cast<std::size_t>(c)] || conv_below[static_cast<std::size_t>(c)]) {
          conv_below[static_cast<std::size_t>(i)] = true;
        }
      }
    }
  }
  GraphRegions regions;
  for (int i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (conv_below[k] || !from_input[k]) continue;
    if (real_conv[k]) {
      regions.final_convs.push_back(graph.node(i).name());
    } else {
      regions.tail.insert(graph.node(i).name());
    }
  }
  for (const auto& node : graph.node()) {
    if (node.op_type() != "MatMul") continue;
    for (const auto& in : node.input()) {
      const onnx::NodeProto* p = source_past_layout(graph, index, in);
      if (p && p->op_type() == "Conv" && is_real_conv(graph, index, *p)) {
        regions.attention_convs.insert(p->name());
      }
    }
  }
  return regions;
}

std::vector<ConvUnit> conv_units(const onnx::GraphProto& graph,
                                 const std::map<std::string, Shape>& shapes) {
  const GraphIndex index = index_graph(graph);
  std::vector<ConvUnit> units;
  for (const auto& node : graph.node()) {
    if (node.op_type() != "Conv" || !is_real_conv(graph, index, node)) continue;
    ConvUnit unit{node.name(), {node.name()}, 0};
    const onnx::TensorProto& w = *index.initializers.at(node.input(1));
    if (auto it = shapes.find(node.output(0)); it != shapes.end()) {
      double per_output = 1;
      for (int d = 1; d < w.dims_size(); ++d) per_output *= static_cast<double>(w.dims(d));
      unit.macs = static_cast<double>(element_count(it->second)) * per_output;
    }
    const auto readers = index.consumers.find(node.output(0));
    if (readers != index.consumers.end() && readers->second.size() == 2 &&
        !index.outputs.count(node.output(0))) {
      std::vector<std::string> silu;
      for (int r : readers->second) {
        const auto& reader = graph.node(r);
        if (reader.op_type() == "Sigmoid" || is_silu_mul(graph, index, reader)) {
          silu.push_back(reader.name());
        }
      }
      if (silu.size() == 2) unit.nodes.insert(unit.nodes.end(), silu.begin(), silu.end());
    }
    units.push_back(std::move(unit));
  }
  return units;
}

std::set<std::string> kept_nodes(const KeepReasons& reasons) {
  std::set<std::string> keep;
  for (const auto& [n, why] : reasons) keep.insert(n);
  return keep;
}

double total_macs(const std::vector<ConvUnit>& units) {
  double total = 0;
  for (const auto& u : units) total += u.macs;
  return std::max(total, 1.0);
}

}  // namespace yolo::runtime
