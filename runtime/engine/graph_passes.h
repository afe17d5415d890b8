// SPDX-License-Identifier: Apache-2.0
#pragma once

// The planner's graph rewrites, run in this order at load: infer shapes and fold constants, fuse
// activations. Each throws ModelError naming the node. (Dynamic-INT8 chains and float16 are
// rewritten before, on the parsed file: runtime/model/fp32_rewrite.h.)

#include "runtime/engine/graph.h"

namespace yolo::runtime {

// Checks every node against the op registry (unsupported op or attribute: names op, node and
// opset), infers every value's dtype and shape (graph inputs must have static shapes by now), and
// runs at load every node whose inputs are all constant (Shape of a static shape included), then
// drops the folded nodes. Returns how many nodes it folded.
int infer_and_fold(Graph& graph);

struct FusionStats {
  int silu = 0;        // Sigmoid + Mul(x, sigmoid(x)) -> SiLU
  int conv_silu = 0;   // Conv -> SiLU
  int conv_clamp = 0;  // Conv -> Relu / Clip
};
// Fuses x * sigmoid(x) into SiLU and a Conv's following SiLU, Relu or constant Clip into the Conv.
FusionStats fuse_activations(Graph& graph);

}  // namespace yolo::runtime
