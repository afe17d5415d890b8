// SPDX-License-Identifier: Apache-2.0
#include "runtime/int8/qdq_chain.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "runtime/int8/int8_operators.h"
#include "runtime/int8/qdq_nodes.h"
#include "runtime/kernels/quantize.h"
#include "runtime/ops/op.h"

namespace yolo::runtime {

namespace {

// The values of one tensor of the chain for each source value q (at q + 128); int8 tensors hold
// whole numbers.
using Values = std::array<float, 256>;

// A chain longer than this is no activation function; the lowering leaves it to the float ops.
constexpr std::size_t kMaxChainNodes = 32;

using qdq::is_op;

// The registry's spec of a chain op, whose functions the table evaluates.
const ops::OpSpec& spec_of(const Node& node) {
  return *ops::find_op(node.domain, node.op_type);
}

bool is_qdq(const Node& node) {
  return is_op(node, "QuantizeLinear") || is_op(node, "DequantizeLinear");
}

float quantized(float x, TensorQuant q) {
  const float level = kernels::round_half_even(x / q.scale) + static_cast<float>(q.zero_point);
  return std::clamp(level, -128.0F, 127.0F);
}

float dequantized(float level, TensorQuant q) {
  return static_cast<float>(static_cast<int>(level) - q.zero_point) * q.scale;
}

class Finder {
 public:
  Finder(const Graph& graph, const std::vector<std::optional<TensorQuant>>& quant)
      : g_(graph), quant_(quant) {}

  std::optional<ElementwiseChain> find(std::size_t last, std::string& why) {
    if (!add_op(last)) {
      why = why_;
      return std::nullopt;
    }
    // Several int8 tensors feed the chain: the latest of them may itself be computed from the
    // others by chain ops behind its QuantizeLinear (the Sigmoid inside a SiLU); take those in.
    while (leaves_.size() > 1) {
      const int leaf = *std::max_element(leaves_.begin(), leaves_.end(), [&](int a, int b) {
        return g_.value(a).producer < g_.value(b).producer;
      });
      const int p = g_.value(leaf).producer;
      const auto q = static_cast<std::size_t>(p);
      if (p < 0 || !quant_[q] || !is_op(g_.nodes[q], "QuantizeLinear")) {
        why = "its inputs come from different int8 tensors";
        return std::nullopt;
      }
      leaves_.erase(leaf);
      members_.insert(q);
      if (!add_float(g_.nodes[q].inputs[0])) {
        why = "its inputs come from different int8 tensors";
        return std::nullopt;
      }
    }
    if (leaves_.empty()) {
      why = "no input is dequantized from an int8 tensor";
      return std::nullopt;
    }
    ElementwiseChain chain;
    chain.source = *leaves_.begin();
    chain.nodes.assign(members_.begin(), members_.end());
    if (!same_shapes(chain, why)) return std::nullopt;
    for (std::size_t n : chain.nodes) chain.inner_roundings += is_op(g_.nodes[n], "QuantizeLinear");
    chain.name = name_of(chain);
    return chain;
  }

 private:
  bool add_op(std::size_t n) {
    if (members_.count(n)) return true;
    if (members_.size() >= kMaxChainNodes) {
      why_ = "the element-wise chain is longer than " + std::to_string(kMaxChainNodes) + " nodes";
      return false;
    }
    members_.insert(n);
    const Node& node = g_.nodes[n];
    const bool unary = !spec_of(node).binary_function();
    for (std::size_t i = 0; i < node.inputs.size(); ++i) {
      // The inputs after a unary op's first are optional constants its function reads (Clip's
      // bounds).
      if (node.inputs[i] < 0 && unary && i > 0) continue;
      if (!add_float(node.inputs[i])) return false;
    }
    return true;
  }

  // Takes in what computes float value `id`: a scalar constant, a per-tensor DequantizeLinear (its
  // int8 input becomes a leaf) or another chain op.
  bool add_float(int id) {
    if (id < 0) {
      why_ = "an input is omitted";
      return false;
    }
    const Value& v = g_.value(id);
    if (v.constant) {
      if (v.constant->dtype() == DType::kFloat32 && v.constant->size() == 1) return true;
      why_ = "input '" + v.name + "' is a constant with more than one value";
      return false;
    }
    const int p = v.producer;
    const auto n = static_cast<std::size_t>(p);
    if (p >= 0 && quant_[n] && is_op(g_.nodes[n], "DequantizeLinear")) {
      members_.insert(n);
      leaves_.insert(g_.nodes[n].inputs[0]);
      return true;
    }
    if (p >= 0 && is_chain_op(g_.nodes[n])) return add_op(n);
    why_ = "input '" + v.name + "' is not dequantized from a per-tensor int8 tensor";
    return false;
  }

  bool same_shapes(const ElementwiseChain& chain, std::string& why) const {
    const Value& source = g_.value(chain.source);
    if (!source.has_shape) {
      why = "the shape of '" + source.name + "' is unknown";
      return false;
    }
    for (std::size_t n : chain.nodes) {
      for (int id : g_.nodes[n].outputs) {
        if (g_.value(id).shape != source.shape) {
          why = "'" + g_.value(id).name + "' differs in shape from '" + source.name +
                "' (broadcasting runs in float)";
          return false;
        }
      }
    }
    return true;
  }

  // Whether node `n` of the chain reads the source through a DequantizeLinear directly.
  bool reads_source(const ElementwiseChain& chain, const Node& node) const {
    return std::any_of(node.inputs.begin(), node.inputs.end(), [&](int id) {
      const int p = id < 0 ? -1 : g_.value(id).producer;
      return p >= 0 && is_op(g_.nodes[static_cast<std::size_t>(p)], "DequantizeLinear") &&
             g_.nodes[static_cast<std::size_t>(p)].inputs[0] == chain.source;
    });
  }

  std::string name_of(const ElementwiseChain& chain) const {
    std::vector<const Node*> ops;
    for (std::size_t n : chain.nodes) {
      if (!is_qdq(g_.nodes[n])) ops.push_back(&g_.nodes[n]);
    }
    auto types_are = [&](std::initializer_list<const char*> types) {
      if (ops.size() != types.size()) return false;
      std::size_t i = 0;
      for (const char* t : types) {
        if (!is_op(*ops[i++], t)) return false;
      }
      return true;
    };
    if (types_are({"Sigmoid"})) return "sigmoid";
    if (types_are({"Sigmoid", "Mul"}) && reads_source(chain, *ops[1])) return "SiLU";
    if (types_are({"HardSwish"})) return "HardSwish";
    if (types_are({"HardSigmoid", "Mul"}) && reads_source(chain, *ops[1]) &&
        std::abs(ops[0]->attr_float("alpha", 0.2F) - 1.0F / 6.0F) < 1e-6F &&
        ops[0]->attr_float("beta", 0.5F) == 0.5F) {
      return "HardSwish";
    }
    std::string name;
    for (const Node* op : ops) name += (name.empty() ? "" : " -> ") + op->op_type;
    return name;
  }

  const Graph& g_;
  const std::vector<std::optional<TensorQuant>>& quant_;
  std::set<std::size_t> members_;
  std::set<int> leaves_;
  std::string why_;
};

}  // namespace

bool is_chain_op(const Node& node) {
  const Int8Support* op = node.domain.empty() ? find_int8_operator(node.op_type) : nullptr;
  if (!op || op->lowering != Int8Lowering::kElementwise) return false;
  return !spec_of(node).binary_function() || node.inputs.size() == 2;
}

std::optional<ElementwiseChain> find_chain(const Graph& graph,
                                           const std::vector<std::optional<TensorQuant>>& quant,
                                           std::size_t last, std::string& why) {
  return Finder(graph, quant).find(last, why);
}

std::optional<Int8Table> chain_table(const Graph& graph,
                                     const std::vector<std::optional<TensorQuant>>& quant,
                                     const ElementwiseChain& chain, TensorQuant output,
                                     bool skip_inner_rounding, std::string& why) {
  std::unordered_map<int, Values> at;
  // Values that stayed float through a skipped QuantizeLinear (and the DequantizeLinear after it).
  std::unordered_set<int> passed;
  Values& source = at[chain.source];
  for (int q = -128; q <= 127; ++q)
    source[static_cast<std::size_t>(q + 128)] = static_cast<float>(q);
  auto input = [&](int id) {
    const Value& v = graph.value(id);
    if (v.constant) {
      Values scalar;
      scalar.fill(v.constant->data_as<float>()[0]);
      return scalar;
    }
    return at.at(id);
  };
  for (std::size_t n : chain.nodes) {
    const Node& node = graph.nodes[n];
    const int out = node.outputs[0];
    const Values x = input(node.inputs[0]);
    Values& y = at[out];
    const bool dq = is_op(node, "DequantizeLinear");
    if (dq || is_op(node, "QuantizeLinear")) {
      if (passed.count(node.inputs[0]) || (skip_inner_rounding && !dq)) {
        y = x;
        passed.insert(out);
        continue;
      }
      for (std::size_t i = 0; i < 256; ++i) {
        y[i] = dq ? dequantized(x[i], *quant[n]) : quantized(x[i], *quant[n]);
      }
    } else if (const auto f = spec_of(node).binary_function()) {
      const Values b = input(node.inputs[1]);
      std::transform(x.begin(), x.end(), b.begin(), y.begin(), f);
    } else {
      std::transform(x.begin(), x.end(), y.begin(), spec_of(node).unary_function(graph, node));
    }
  }
  const Values& result = at.at(graph.nodes[chain.nodes.back()].outputs[0]);
  Int8Table table{};
  for (int q = -128; q <= 127; ++q) {
    const float v = result[static_cast<std::size_t>(q + 128)];
    if (std::isnan(v)) {
      why = "the chain gives NaN for int8 input " + std::to_string(q);
      return std::nullopt;
    }
    table[static_cast<std::uint8_t>(q)] = static_cast<std::int8_t>(quantized(v, output));
  }
  return table;
}

Int8Table requantize_table(TensorQuant input, TensorQuant output) {
  Int8Table table{};
  for (int q = -128; q <= 127; ++q) {
    table[static_cast<std::uint8_t>(q)] =
        static_cast<std::int8_t>(quantized(dequantized(static_cast<float>(q), input), output));
  }
  return table;
}

}  // namespace yolo::runtime
