// SPDX-License-Identifier: Apache-2.0
#include "runtime/int8/qdq_lowering.h"

#include <cmath>
#include <numeric>
#include <optional>
#include <set>

#include "runtime/int8/int8_operators.h"
#include "runtime/int8/qdq_chain.h"
#include "runtime/int8/qdq_nodes.h"
#include "runtime/model/model_error.h"

namespace yolo::runtime {

namespace {

using qdq::add_constant;
using qdq::add_quant;
using qdq::attr_int;
using qdq::attr_ints;
using qdq::attr_string;
using qdq::attr_table;
using qdq::channel_axis;
using qdq::constant_of;
using qdq::constant_ptr;
using qdq::explicit_padding;
using qdq::ints_or;
using qdq::is_op;
using qdq::qconv_constants;
using qdq::tensor_quant;
using Quant = TensorQuant;

// A lookup's result: the value found, or why there is none.
template <typename T>
struct Found {
  std::optional<T> value;
  std::string why;
  explicit operator bool() const { return value.has_value(); }
  const T& operator*() const { return *value; }
  const T* operator->() const { return &*value; }
};

class Lowering {
 public:
  Lowering(Graph& graph, const QuantizedWeights& weights, const QdqLoweringOptions& options)
      : g_(graph),
        original_(graph),
        weights_(weights),
        options_(options),
        consumers_(graph.consumers()),
        quant_(graph.nodes.size()),
        dead_(graph.nodes.size(), false),
        decisions_(graph.nodes.size()) {
    for (std::size_t n = 0; n < g_.nodes.size(); ++n) {
      const Node& node = g_.nodes[n];
      quant_[n] = tensor_quant(g_, node);
      original_op_.push_back(node.op_type);
      const std::string op = node.domain.empty() ? node.op_type : node.domain + "." + node.op_type;
      decisions_[n].note = "kept FP32: no int8 lowering for " + op;
      if (is_op(node, "QuantizeLinear") || is_op(node, "DequantizeLinear")) {
        decisions_[n].note = "kept FP32: not a per-tensor int8 " + op + ", runs in float";
      }
    }
  }

  // What became of each node, in topological order (valid after run()).
  std::vector<QdqLayer> layers() && { return std::move(layers_); }

  QdqLoweringStats run() {
    // uint8 activations become int8 (their zero points were shifted by tensor_quant).
    for (std::size_t n = 0; n < g_.nodes.size(); ++n) {
      if (quant_[n] && is_op(g_.nodes[n], "QuantizeLinear"))
        g_.value(g_.nodes[n].outputs[0]).dtype = DType::kInt8;
    }
    lower_input();
    for (std::size_t n = 0; n < g_.nodes.size(); ++n) {
      if (dead_[n] || !g_.nodes[n].domain.empty()) continue;
      const Int8Support* op = find_int8_operator(g_.nodes[n].op_type);
      if (op) lower(n, op->lowering);
    }
    // The Q/DQ nodes left are the borders of FP32 islands.
    for (std::size_t n = 0; n < g_.nodes.size(); ++n) {
      Node& node = g_.nodes[n];
      if (dead_[n] || !quant_[n]) continue;
      const bool dq = is_op(node, "DequantizeLinear");
      node.inputs.resize(1);
      node.domain = "yolo";
      node.op_type = dq ? "Dequantize" : "Quantize";
      node.attributes.clear();
      add_quant(node, "", *quant_[n]);
    }
    const int islands = collect_layers();
    for (auto& node : extra_) g_.nodes.push_back(std::move(node));
    dead_.resize(g_.nodes.size(), false);
    g_.remove_nodes(dead_);
    g_.remove_unused();
    g_.topological_sort();
    fuse_tables();
    note_absorbed_chain_ops();
    QdqLoweringStats stats = qdq::count_int8_steps(g_);
    stats.uint8_input = uint8_input_;
    stats.chains_as_written = chains_as_written_;
    stats.fp32_islands = islands;
    return stats;
  }

 private:
  void lower(std::size_t n, Int8Lowering lowering) {
    switch (lowering) {
      case Int8Lowering::kConv:
        return lower_conv(n);
      case Int8Lowering::kElementwise:
        if (is_chain_op(g_.nodes[n])) lower_elementwise(n);
        return;
      case Int8Lowering::kMaxPool:
        return lower_maxpool(n);
      case Int8Lowering::kUpsample:
        return lower_resize(n);
      case Int8Lowering::kConcat:
        return lower_concat(n);
      case Int8Lowering::kSplit:
        return lower_split(n);
    }
  }

  // Records that node n stays float, and why.
  void keep(std::size_t n, const std::string& why) {
    decisions_[n].int8 = false;
    decisions_[n].note = "kept FP32: " + why;
  }
  void lowered(std::size_t n, const std::string& how) {
    decisions_[n].int8 = true;
    decisions_[n].note = how;
  }

  // The int8 value and its quantization behind a DequantizeLinear producing `id`.
  Found<std::pair<int, Quant>> dq_source(int id) const {
    if (id < 0) return {std::nullopt, "an input is omitted"};
    const Value& v = g_.value(id);
    auto none = [&] {
      return "input '" + v.name + "' is " +
             (v.constant ? "a float constant" : "not dequantized from a per-tensor int8 tensor");
    };
    const int p = v.producer;
    if (p < 0 || !quant_[static_cast<std::size_t>(p)]) return {std::nullopt, none()};
    const Node& node = g_.nodes[static_cast<std::size_t>(p)];
    if (!is_op(node, "DequantizeLinear")) return {std::nullopt, none()};
    return {std::pair{node.inputs[0], *quant_[static_cast<std::size_t>(p)]}, {}};
  }

  // The QuantizeLinear that is the only reader of float output `id`: its node, output, params.
  struct Sink {
    std::size_t node;
    int output;
    Quant quant;
  };
  Found<Sink> sole_q(int id) const {
    const std::string none = "no QuantizeLinear on its output";
    if (id < 0) return {std::nullopt, none};
    if (g_.value(id).graph_output) {
      return {std::nullopt, "its output '" + g_.value(id).name + "' is a model output"};
    }
    const auto& readers = consumers_[static_cast<std::size_t>(id)];
    if (readers.size() > 1) {
      return {std::nullopt, "its output feeds " + std::to_string(readers.size()) +
                                " nodes, not one QuantizeLinear"};
    }
    if (readers.empty()) return {std::nullopt, none};
    const auto q = static_cast<std::size_t>(readers[0]);
    const bool is_q = is_op(g_.nodes[q], "QuantizeLinear");
    if (is_q && !quant_[q]) {
      return {std::nullopt, "the QuantizeLinear on its output is not per-tensor int8"};
    }
    if (dead_[q] || !quant_[q] || !is_q) return {std::nullopt, none};
    return {Sink{q, g_.nodes[q].outputs[0], *quant_[q]}, {}};
  }

  void replace(std::size_t n, const std::string& op, std::vector<int> inputs, const Sink& sink) {
    Node& node = g_.nodes[n];
    node.domain = "yolo";
    node.op_type = op;
    node.inputs = std::move(inputs);
    node.outputs = {sink.output};
    node.attributes.clear();
    dead_[sink.node] = true;
  }

  // The model input quantized with scale 1/255 and zero point -128 is the uint8 image xor 0x80.
  void lower_input() {
    if (g_.inputs.size() != 1) return;
    const int in = g_.inputs[0];
    const auto& readers = consumers_[static_cast<std::size_t>(in)];
    if (readers.size() != 1) return;
    const auto q = static_cast<std::size_t>(readers[0]);
    if (!quant_[q] || !is_op(g_.nodes[q], "QuantizeLinear")) return;
    if (std::abs(quant_[q]->scale * 255.0F - 1.0F) > 1e-5F || quant_[q]->zero_point != -128) return;
    const int out = g_.nodes[q].outputs[0];
    if (g_.value(out).graph_output) return;
    for (auto& node : g_.nodes) {
      for (auto& id : node.inputs) {
        if (id == out) id = in;
      }
    }
    g_.value(in).dtype = DType::kInt8;
    dead_[q] = true;
    uint8_input_ = true;
    input_rewired_ = {out, in};
  }

  void lower_conv(std::size_t n) {
    const Node node = g_.nodes[n];
    const auto x = dq_source(node.input(0));
    if (!x) return keep(n, x.why);
    const auto sink = sole_q(node.outputs[0]);
    if (!sink) return keep(n, sink.why);
    const auto w = weights_.find(node.input(1));
    if (w == weights_.end()) return keep(n, "its weights are not int8 behind a DequantizeLinear");
    if (!explicit_padding(node)) return keep(n, "auto_pad is set");
    const Tensor* b = node.input(2) >= 0 ? constant_of(g_, node.input(2)) : nullptr;
    std::string why;
    auto constants = qconv_constants(w->second, node.input(2) >= 0, b, x->second, sink->quant, why);
    if (!constants) return keep(n, why);
    std::vector<int> inputs{
        x->first, add_constant(g_, node.name + "/w_int8", std::move(constants->weights)), -1};
    if (constants->bias) {
      inputs.push_back(add_constant(g_, node.name + "/bias_int32", std::move(*constants->bias)));
    }
    inputs[2] = add_constant(g_, node.name + "/w_scale", std::move(constants->scales));
    const Shape& w_shape = w->second.values->shape();
    replace(n, "QConv", std::move(inputs), *sink);
    Node& q = g_.nodes[n];
    q.attributes.push_back(attr_ints("kernel_shape", {w_shape[2], w_shape[3]}));
    q.attributes.push_back(attr_ints("strides", ints_or(node, "strides", {1, 1})));
    q.attributes.push_back(attr_ints("dilations", ints_or(node, "dilations", {1, 1})));
    q.attributes.push_back(attr_ints("pads", ints_or(node, "pads", {0, 0, 0, 0})));
    q.attributes.push_back(attr_int("group", node.attr_int("group", 1)));
    add_quant(q, "x_", x->second);
    add_quant(q, "y_", sink->quant);
    lowered(n, "int8 QConv");
  }

  // An element-wise op ending a chain on one int8 tensor becomes one table of the whole chain;
  // Add, Sub and Mul of two int8 tensors that are not one chain become a QBinary.
  void lower_elementwise(std::size_t n) {
    const Node node = g_.nodes[n];
    const auto sink = sole_q(node.outputs[0]);
    if (!sink) return keep(n, sink.why);
    std::string why;
    const auto chain = find_chain(original_, quant_, n, why);
    if (!chain) {
      const bool binary = node.op_type == "Add" || node.op_type == "Sub" || node.op_type == "Mul";
      if (binary && why == "its inputs come from different int8 tensors") {
        return lower_binary(n, *sink);
      }
      return keep(n, why);
    }
    const bool skip = options_.one_table_chains;
    const auto table = chain_table(original_, quant_, *chain, sink->quant, skip, why);
    if (!table) return keep(n, why);
    const int source =
        chain->source == input_rewired_.first ? input_rewired_.second : chain->source;
    replace(n, "QLut", {source}, *sink);
    g_.nodes[n].attributes.push_back(attr_string("function", chain->name));
    g_.nodes[n].attributes.push_back(attr_table("table", *table));
    const bool as_written = chain->inner_roundings > 0 && !skip;
    chains_as_written_ += as_written;
    chain_name_[n] = chain->name;
    lowered(n,
            "int8 " + chain->name + " table" +
                (as_written ? " (composed as written, " + std::to_string(chain->inner_roundings) +
                                  " inner rounding" + (chain->inner_roundings > 1 ? "s)" : ")")
                            : std::string()));
    absorb_chain_ops(*chain, n);
  }

  // The float ops of the chain ending at `last` that only it reads are computed inside its
  // table; those lowered to tables of their own are noted once their tables turn out unused.
  void absorb_chain_ops(const ElementwiseChain& chain, std::size_t last) {
    std::set<std::size_t> absorbed{last};
    for (auto it = chain.nodes.rbegin(); it != chain.nodes.rend(); ++it) {
      const std::size_t m = *it;
      if (m == last || quant_[m]) continue;
      decisions_[m].absorbed_by = last;
      if (decisions_[m].int8) continue;
      bool only_chain = true;
      for (int id : original_.nodes[m].outputs) {
        for (int reader : consumers_[static_cast<std::size_t>(id)]) {
          only_chain = only_chain && absorbed.count(static_cast<std::size_t>(reader)) > 0;
        }
      }
      if (!only_chain) continue;
      absorbed.insert(m);
      lowered(m, "int8: inside the " + chain.name + " table");
    }
  }

  void lower_binary(std::size_t n, const Sink& sink) {
    const Node node = g_.nodes[n];
    const auto a = dq_source(node.input(0));
    if (!a) return keep(n, a.why);
    const auto b = dq_source(node.input(1));
    if (!b) return keep(n, b.why);
    if (g_.value(a->first).shape != g_.value(b->first).shape ||
        g_.value(a->first).shape != g_.value(node.outputs[0]).shape) {
      return keep(n, "its inputs and output differ in shape (broadcasting runs in float)");
    }
    replace(n, "QBinary", {a->first, b->first}, sink);
    Node& q = g_.nodes[n];
    q.attributes.push_back(attr_string("op", node.op_type));
    add_quant(q, "a_", a->second);
    add_quant(q, "b_", b->second);
    add_quant(q, "y_", sink.quant);
    lowered(n, "int8 " + node.op_type);
  }

  // The int8 source and the QuantizeLinear of an op whose output keeps its input's quantization
  // (max pool, nearest upsample); none after keep() has said why.
  std::optional<std::pair<int, Sink>> same_quant_io(std::size_t n) {
    const Node& node = g_.nodes[n];
    const auto x = dq_source(node.input(0));
    if (!x) {
      keep(n, x.why);
      return std::nullopt;
    }
    const auto sink = sole_q(node.outputs[0]);
    if (!sink) {
      keep(n, sink.why);
      return std::nullopt;
    }
    if (!(x->second == sink->quant)) {
      keep(n, "its input and output quantization differ");
      return std::nullopt;
    }
    return std::pair{x->first, *sink};
  }

  void lower_maxpool(std::size_t n) {
    const Node node = g_.nodes[n];
    const auto io = same_quant_io(n);
    if (!io) return;
    if (!explicit_padding(node)) return keep(n, "auto_pad is set");
    if (node.attr_int("ceil_mode", 0) != 0 || node.attr_int("storage_order", 0) != 0) {
      return keep(n, "ceil_mode or storage_order is set");
    }
    if (node.attr_ints("kernel_shape").size() != 2 || node.outputs.size() != 1) {
      return keep(n, "not a 2-D pool with one output");
    }
    replace(n, "QMaxPool", {io->first}, io->second);
    Node& q = g_.nodes[n];
    q.attributes.push_back(attr_ints("kernel_shape", node.attr_ints("kernel_shape")));
    q.attributes.push_back(attr_ints("strides", ints_or(node, "strides", {1, 1})));
    q.attributes.push_back(attr_ints("dilations", ints_or(node, "dilations", {1, 1})));
    q.attributes.push_back(attr_ints("pads", ints_or(node, "pads", {0, 0, 0, 0})));
    lowered(n, "int8 max pool");
  }

  void lower_resize(std::size_t n) {
    const Node node = g_.nodes[n];
    const auto io = same_quant_io(n);
    if (!io) return;
    const Shape& in = g_.value(io->first).shape;
    const Shape& out = g_.value(node.outputs[0]).shape;
    if (in.size() != 4 || out.size() != 4 || in[0] != out[0] || in[1] != out[1] ||
        out[2] % in[2] != 0 || out[3] % in[3] != 0) {
      return keep(n, "not a whole-number upscale of height and width");
    }
    const std::int64_t fh = out[2] / in[2], fw = out[3] / in[3];
    const auto mode = node.attr_string("mode", "nearest");
    if (mode != "nearest") return keep(n, "mode " + mode + " (int8 runs nearest only)");
    const auto transform = node.attr_string("coordinate_transformation_mode", "half_pixel");
    if (transform != "asymmetric") {
      return keep(n, "coordinate_transformation_mode " + transform + " (int8 runs asymmetric)");
    }
    // Asymmetric nearest reads input x / f: floor always, round_prefer_floor only for f <= 2.
    const auto rounding = node.attr_string("nearest_mode", "round_prefer_floor");
    if (rounding != "floor" && !(rounding == "round_prefer_floor" && fh <= 2 && fw <= 2)) {
      return keep(n, "nearest_mode " + rounding + " at this factor");
    }
    replace(n, "QUpsample", {io->first}, io->second);
    g_.nodes[n].attributes.push_back(attr_int("factor_h", fh));
    g_.nodes[n].attributes.push_back(attr_int("factor_w", fw));
    lowered(n, "int8 nearest upsample x" + std::to_string(fh) +
                   (fw == fh ? std::string() : " by x" + std::to_string(fw)));
  }

  void lower_concat(std::size_t n) {
    const Node node = g_.nodes[n];
    const auto sink = sole_q(node.outputs[0]);
    if (!sink) return keep(n, sink.why);
    if (!channel_axis(node, 0) || g_.value(node.outputs[0]).shape.size() != 4) {
      return keep(n, "not a channel concat of 4-D tensors");
    }
    std::vector<int> inputs;
    for (int id : node.inputs) {
      const auto x = dq_source(id);
      if (!x) return keep(n, x.why);
      inputs.push_back(x->first);
    }
    int requantized = 0;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const auto x = dq_source(node.inputs[i]);
      if (x->second == sink->quant) continue;
      ++requantized;
      // Unequal scales: requantize this input with an identity table first.
      Value v = g_.value(x->first);
      v.name += "/requantized";
      const std::string name = v.name;
      v.producer = -1;
      v.graph_output = false;
      v.graph_input = false;
      const int id = g_.add_value(std::move(v));
      Node r;
      r.name = name;
      r.domain = "yolo";
      r.op_type = "QLut";
      r.inputs = {x->first};
      r.outputs = {id};
      r.attributes.push_back(attr_string("function", "identity"));
      r.attributes.push_back(attr_table("table", requantize_table(x->second, sink->quant)));
      extra_.push_back(std::move(r));
      inputs[i] = id;
    }
    Node& c = g_.nodes[n];
    c.inputs = std::move(inputs);
    c.outputs = {sink->output};
    dead_[sink->node] = true;
    lowered(n, requantized == 0 ? "int8 concat"
                                : "int8 concat, " + std::to_string(requantized) +
                                      " input(s) requantized to its scale");
  }

  void lower_split(std::size_t n) {
    const Node node = g_.nodes[n];
    const auto x = dq_source(node.input(0));
    if (!x) return keep(n, x.why);
    if (!channel_axis(node, 0) || g_.value(x->first).shape.size() != 4) {
      return keep(n, "not a channel split of a 4-D tensor");
    }
    std::vector<Sink> sinks;
    for (int id : node.outputs) {
      const auto s = sole_q(id);
      if (!s) return keep(n, s.why);
      if (!(s->quant == x->second)) {
        return keep(n, "output '" + g_.value(id).name + "' is quantized unlike its input");
      }
      sinks.push_back(*s);
    }
    Node& s = g_.nodes[n];
    s.inputs[0] = x->first;
    for (std::size_t i = 0; i < sinks.size(); ++i) {
      s.outputs[i] = sinks[i].output;
      dead_[sinks[i].node] = true;
    }
    lowered(n, "int8 split");
  }

  // Turns the decisions into layers (every node but the consumed Q/DQ) before the nodes are
  // renumbered, remembering which layer writes each int8 output; returns the number of FP32
  // islands: groups of float layers connected by float tensors.
  int collect_layers() {
    std::vector<std::size_t> group(g_.nodes.size());
    std::iota(group.begin(), group.end(), std::size_t{0});
    auto root = [&](std::size_t n) {
      while (group[n] != n) n = group[n] = group[group[n]];
      return n;
    };
    auto fp32 = [&](std::size_t n) { return !dead_[n] && !quant_[n] && !decisions_[n].int8; };
    for (std::size_t n = 0; n < g_.nodes.size(); ++n) {
      if (!fp32(n)) continue;
      for (int id : g_.nodes[n].outputs) {
        for (int reader : consumers_[static_cast<std::size_t>(id)]) {
          const auto r = static_cast<std::size_t>(reader);
          if (fp32(r)) group[root(r)] = root(n);
        }
      }
    }
    int islands = 0;
    for (std::size_t n = 0; n < g_.nodes.size(); ++n) {
      if (dead_[n] || quant_[n]) continue;
      const Node& node = g_.nodes[n];
      const Decision& d = decisions_[n];
      const std::size_t layer = layers_.size();
      layers_.push_back({node.name, original_op_[n], d.int8, d.note, {}});
      layer_of_node_[n] = layer;
      if (d.absorbed_by) absorbed_layers_.push_back({layer, node.outputs[0], *d.absorbed_by});
      if (d.int8) {
        for (int id : node.outputs) layer_of_output_[id] = layer;
      } else {
        islands += root(n) == n;
      }
    }
    return islands;
  }

  // An op of a chain whose output nothing reads any more (a sigmoid table whose only use was the
  // SiLU table built from it) runs inside the chain's table.
  void note_absorbed_chain_ops() {
    std::vector<bool> written(g_.values.size(), false);
    for (const auto& node : g_.nodes) {
      for (int id : node.outputs) written[static_cast<std::size_t>(id)] = true;
    }
    for (const auto& absorbed : absorbed_layers_) {
      if (written[static_cast<std::size_t>(absorbed.output)]) continue;
      const QdqLayer& table = layers_[layer_of_node_.at(absorbed.table_node)];
      const std::string& name = chain_name_.at(absorbed.table_node);
      QdqLayer& layer = layers_[absorbed.layer];
      layer.int8 = true;
      layer.note = "int8: inside the " + name + " table" +
                   (table.fused_into.empty() ? "" : " fused into a QConv");
      layer.fused_into = table.fused_into.empty() ? table.node : table.fused_into;
    }
  }

  // A table reading a conv's only output runs in place on the conv's output.
  void fuse_tables() {
    const auto readers = g_.consumers();
    std::vector<bool> dead(g_.nodes.size(), false);
    for (std::size_t n = 0; n < g_.nodes.size(); ++n) {
      const Node& lut = g_.nodes[n];
      if (lut.domain != "yolo" || lut.op_type != "QLut") continue;
      const auto function = lut.attr_string("function", "");
      if (function == "identity") continue;
      const int x = lut.inputs[0];
      const int p = g_.value(x).producer;
      if (p < 0 || g_.value(x).graph_output || readers[static_cast<std::size_t>(x)].size() != 1) {
        continue;
      }
      Node& conv = g_.nodes[static_cast<std::size_t>(p)];
      if (conv.domain != "yolo" || conv.op_type != "QConv" || conv.has_attribute("act")) continue;
      const auto conv_layer = layer_of_output_.find(x);
      const auto lut_layer = layer_of_output_.find(lut.outputs[0]);
      const std::string& table = function;
      if (conv_layer != layer_of_output_.end())
        layers_[conv_layer->second].note += " + " + table + " table";
      if (lut_layer != layer_of_output_.end()) {
        layers_[lut_layer->second].note = "int8: " + table + " table fused into a QConv";
        layers_[lut_layer->second].fused_into = conv.name;
      }
      conv.attributes.push_back(attr_string("act", function));
      conv.attributes.push_back(*lut.find_attribute("table"));
      conv.attributes.back().set_name("act_table");
      conv.outputs = lut.outputs;
      dead[n] = true;
    }
    g_.remove_nodes(dead);
    g_.topological_sort();
  }

  Graph& g_;
  // The graph as given: chains are found and evaluated on it while g_ is being rewritten.
  const Graph original_;
  const QuantizedWeights& weights_;
  const QdqLoweringOptions& options_;
  std::vector<std::vector<int>> consumers_;
  std::vector<std::optional<Quant>> quant_;
  std::vector<bool> dead_;
  std::vector<Node> extra_;
  bool uint8_input_ = false;
  // The input's QuantizeLinear output and the int8 input that replaced it (lower_input).
  std::pair<int, int> input_rewired_{-1, -1};
  int chains_as_written_ = 0;
  // The name of the chain each table node computes.
  std::unordered_map<std::size_t, std::string> chain_name_;

  // Per node of the graph as given (indices valid until the rewrite renumbers them).
  struct Decision {
    bool int8 = false;
    std::string note;
    // A float op of a chain: the node whose table computes the chain.
    std::optional<std::size_t> absorbed_by;
  };
  std::vector<Decision> decisions_;
  std::vector<std::string> original_op_;
  std::vector<QdqLayer> layers_;
  std::unordered_map<int, std::size_t> layer_of_output_;
  std::unordered_map<std::size_t, std::size_t> layer_of_node_;
  // Layers of chain ops: their output, and the node whose table computes the chain.
  struct AbsorbedLayer {
    std::size_t layer;
    int output;
    std::size_t table_node;
  };
  std::vector<AbsorbedLayer> absorbed_layers_;
};

}  // namespace

QdqLoweringStats lower_qdq(Graph& graph, const QuantizedWeights& weights,
                           const QdqLoweringOptions& options, std::vector<QdqLayer>* layers) {
  graph.topological_sort();
  Lowering lowering(graph, weights, options);
  const QdqLoweringStats stats = lowering.run();
  if (layers) *layers = std::move(lowering).layers();
  return stats;
}

}  // namespace yolo::runtime
