// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/channel_spread.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "runtime/quantize/graph_index.h"
#include "text/format.h"

namespace yolo::runtime {

namespace {

// The conv unit holding node `name`, if any.
const ConvUnit* unit_with(const std::vector<ConvUnit>& units, const std::string& name) {
  for (const auto& u : units) {
    if (std::find(u.nodes.begin(), u.nodes.end(), name) != u.nodes.end()) return &u;
  }
  return nullptr;
}

// Every node has a name here (name_unnamed_nodes).
std::string name_and_op(const onnx::NodeProto& node) {
  return node.name() + " (" + node.op_type() + ")";
}

}  // namespace

std::vector<SpreadTensor> keep_spread_tensors(const onnx::GraphProto& graph,
                                              const std::vector<ConvUnit>& units,
                                              const Calibration& calib, KeepReasons& keep,
                                              const std::function<void(const std::string&)>& log) {
  const GraphIndex index = index_graph(graph);
  const double all_macs = total_macs(units);

  std::vector<SpreadTensor> found;
  for (const auto& [tensor, peaks] : calib.channel_peaks) {
    const double spread = peaks.spread();
    if (spread > kMaxChannelSpread) found.push_back({tensor, spread, {}, 0, false, {}});
  }
  std::sort(found.begin(), found.end(), [](const SpreadTensor& a, const SpreadTensor& b) {
    return a.spread != b.spread ? a.spread > b.spread : a.tensor < b.tensor;
  });

  double spent = 0;
  for (SpreadTensor& t : found) {
    // The units on both sides: the producer's, then each reader's.
    std::vector<const ConvUnit*> sides;
    const onnx::NodeProto* made_by = producer_of(graph, index, t.tensor);
    const ConvUnit* producer = made_by ? unit_with(units, made_by->name()) : nullptr;
    if (!producer) {
      t.why_not = "made by " + (made_by ? name_and_op(*made_by) : std::string("the graph input")) +
                  ", not a conv: that node would round it anyway";
    } else {
      sides.push_back(producer);
    }
    const std::set<std::string> already = kept_nodes(keep);
    for (const int i :
         index.consumers.count(t.tensor) ? index.consumers.at(t.tensor) : std::vector<int>{}) {
      const onnx::NodeProto& reader = graph.node(i);
      if (const ConvUnit* u = unit_with(units, reader.name())) {
        if (u != producer) sides.push_back(u);
      } else if (!already.count(reader.name()) && t.why_not.empty()) {
        t.why_not = "also read by " + name_and_op(reader) + ", which would round it anyway";
      }
    }
    for (const ConvUnit* u : sides) {
      t.convs.push_back(u->conv);
      if (!already.count(u->conv)) t.mac_share += u->macs / all_macs;
    }
    if (t.why_not.empty() && spent + t.mac_share > kMaxSpreadMacShare) {
      t.why_not = text::format(
          "its convs would take those kept FP32 for spread to %.1f%% of the conv MACs (at most "
          "%.0f%%)",
          100.0 * (spent + t.mac_share), 100.0 * kMaxSpreadMacShare);
    }
    std::string convs;
    for (const auto& c : t.convs) convs += (convs.empty() ? "" : ", ") + c;
    const std::string what = text::format(
        "%s: its channels' peaks differ %.1f-fold (largest over median); one int8 scale would "
        "leave half of them fewer than %.0f steps",
        t.tensor.c_str(), t.spread, std::floor(255.0 / t.spread));
    if (!t.why_not.empty()) {
      if (log) log("channel spread: " + what + "; left int8: " + t.why_not);
      continue;
    }
    t.kept = true;
    spent += t.mac_share;
    for (const ConvUnit* u : sides) {
      for (const auto& n : u->nodes) {
        if (!already.count(n)) keep[n] = "channel spread at " + what;
      }
    }
    if (log) {
      log("channel spread: " + what + " -> FP32: " + convs +
          text::format(" (%.1f%% of conv MACs)", 100.0 * t.mac_share));
    }
  }
  return found;
}

nlohmann::json spread_report(const std::vector<SpreadTensor>& tensors) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& t : tensors) {
    rows.push_back({{"tensor", t.tensor},
                    {"spread", text::rounded(t.spread, 2)},
                    {"convs", t.convs},
                    {"mac_share", text::rounded(t.mac_share, 4)},
                    {"kept_fp32", t.kept},
                    {"why_not", t.why_not}});
  }
  return rows;
}

}  // namespace yolo::runtime
