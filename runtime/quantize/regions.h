// SPDX-License-Identifier: Apache-2.0
#pragma once

// The structural analysis of a YOLO graph that `auto` starts from, and the nodes kept FP32.

#include <onnx/onnx_pb.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/engine/tensor.h"

namespace yolo::runtime {

struct GraphRegions {
  // Nodes after the last real Conv of each branch: DFL (Softmax -> Conv), box decode, final
  // Concat/Sigmoid, TopK/Gather tails.
  std::set<std::string> tail;
  // The last real Conv of each detection branch (box and class convs): sensitivity candidates.
  std::vector<std::string> final_convs;
  // Real convs whose output reaches a MatMul only through reshapes, splits and transposes: the
  // q/k/v projections of attention blocks. The softmax between the MatMuls amplifies their
  // rounding (docs/quantization.md), so `auto` weighs keeping them FP32.
  std::set<std::string> attention_convs;
};
GraphRegions find_regions(const onnx::GraphProto& graph);

// A real conv and the SiLU reading its output (when nothing else reads it): kept FP32 together,
// so no convert sits between them.
struct ConvUnit {
  std::string conv;
  std::vector<std::string> nodes;
  double macs = 0;
};
// Every real conv of the graph (not the DFL's) in graph order, with its MACs from the observed
// output shapes.
std::vector<ConvUnit> conv_units(const onnx::GraphProto& graph,
                                 const std::map<std::string, Shape>& shapes);
// The MACs of all `units` (at least 1: the denominator of a unit's share).
double total_macs(const std::vector<ConvUnit>& units);

// The nodes kept FP32, each with why (as the report and the log say it).
using KeepReasons = std::map<std::string, std::string>;
std::set<std::string> kept_nodes(const KeepReasons& reasons);

}  // namespace yolo::runtime
