// SPDX-License-Identifier: Apache-2.0
#pragma once

// Element-wise chains of a QDQ graph as 256-entry int8 tables. A chain is every float op (and
// every QuantizeLinear / DequantizeLinear pair inside it) between one int8 tensor and the
// QuantizeLinear that ends it: ONNX Runtime's SiLU is `DQ(x) -> Sigmoid -> Q -> DQ -> Mul(x) ->
// Q`, a decomposed HardSwish `DQ(x) -> HardSigmoid -> Q -> DQ -> Mul(x) -> Q`. Since the chain is
// a function of one int8 value, its table can compute it exactly as the file writes it, inner
// roundings included, with the same float arithmetic the ops define.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/engine/graph.h"

namespace yolo::runtime {

// Per-tensor quantization in the int8 domain (uint8 with zero point z is int8 with z - 128).
struct TensorQuant {
  float scale = 1.0F;
  int zero_point = 0;
  bool operator==(const TensorQuant& o) const {
    return scale == o.scale && zero_point == o.zero_point;
  }
};

// table[uint8_t(q)]: the int8 output for int8 input q (indexed by the input's raw byte).
using Int8Table = std::array<std::int8_t, 256>;

// The float ops a chain may hold: the ops whose int8 lowering is element-wise (runtime/ops/op.h),
// the binary ones (Add, Sub, Mul, Div, Min, Max) with two inputs. The table evaluates each with
// the function its spec gives.
bool is_chain_op(const Node& node);

struct ElementwiseChain {
  // The int8 value every float input of the chain is dequantized from.
  int source = -1;
  // The chain's nodes in graph order, the last one the op whose output the sink quantizes:
  // float ops and the QuantizeLinear / DequantizeLinear inside it (the sink is not included).
  std::vector<std::size_t> nodes;
  // "sigmoid", "SiLU", "HardSwish", or the ops in order ("Add -> Clip -> Div -> Mul").
  std::string name;
  // QuantizeLinear nodes inside the chain (each one a rounding the table reproduces).
  int inner_roundings = 0;
};

// The chain ending at node `last` (a chain op) of a topologically sorted graph, where `quant`
// holds, per node, the per-tensor parameters of each QuantizeLinear / DequantizeLinear on a
// non-constant int8 value. None when the op's inputs do not all derive from one int8 tensor
// through chain ops, scalar constants and such Q/DQ nodes, or shapes differ; `why` then says why.
std::optional<ElementwiseChain> find_chain(const Graph& graph,
                                           const std::vector<std::optional<TensorQuant>>& quant,
                                           std::size_t last, std::string& why);

// The chain evaluated for each of the 256 values of its source, in float as the ops define it,
// and quantized with `output` (round half to even, saturating). With `skip_inner_rounding` a
// QuantizeLinear -> DequantizeLinear inside the chain passes its float value through (the one
// table from source to output that yolo-edge's own files ask for). None when the chain gives NaN
// for some input; `why` then says where.
std::optional<Int8Table> chain_table(const Graph& graph,
                                     const std::vector<std::optional<TensorQuant>>& quant,
                                     const ElementwiseChain& chain, TensorQuant output,
                                     bool skip_inner_rounding, std::string& why);

// Requantization from `input` to `output` parameters as DequantizeLinear then QuantizeLinear
// compute it.
Int8Table requantize_table(TensorQuant input, TensorQuant output);

}  // namespace yolo::runtime
