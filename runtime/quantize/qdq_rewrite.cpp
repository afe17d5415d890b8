// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/qdq_rewrite.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "runtime/quantize/error.h"
#include "runtime/quantize/graph_index.h"
#include "runtime/quantize/onnx_proto.h"

namespace yolo::runtime {

namespace {

// Union-find over tensor names, for the tensors that must share one scale.
class ScaleGroups {
 public:
  const std::string& find(const std::string& t) {
    auto it = parent_.find(t);
    if (it == parent_.end()) it = parent_.emplace(t, t).first;
    if (it->second == t) return it->first;
    const std::string root = find(it->second);
    parent_[t] = root;
    return parent_.find(root)->first;
  }
  void unite(const std::string& a, const std::string& b) {
    const std::string ra = find(a);
    const std::string rb = find(b);
    if (ra != rb) parent_[ra] = rb;
  }

 private:
  std::map<std::string, std::string> parent_;
};

// The (scale, zero point) of every quantized tensor: the union of each shared group's ranges;
// the image input is fixed at 1/255 and -128.
std::map<std::string, ActivationQuant> tensor_params(
    const onnx::GraphProto& source, const GraphIndex& index,
    const std::vector<std::string>& tensors, const std::map<std::string, ActivationRange>& ranges,
    const std::set<std::string>& keep_fp32) {
  ScaleGroups groups;
  for (const auto& node : source.node()) {
    if (keep_fp32.count(node.name())) continue;
    const auto io = quant_io(source, index, node);
    if (!io || !io->shares_scale) continue;
    for (const auto& t : io->inputs) groups.unite(t, io->outputs.front());
    for (const auto& t : io->outputs) groups.unite(t, io->outputs.front());
  }
  std::map<std::string, ActivationRange> group_range;
  std::set<std::string> fixed_groups;
  for (const auto& t : tensors) {
    const std::string root = groups.find(t);
    if (t == index.input) {
      fixed_groups.insert(root);
      continue;
    }
    auto it = ranges.find(t);
    if (it == ranges.end()) throw QuantizeError("no calibration range for tensor " + t);
    auto [g, inserted] = group_range.emplace(root, it->second);
    if (!inserted) {
      g->second.lo = std::min(g->second.lo, it->second.lo);
      g->second.hi = std::max(g->second.hi, it->second.hi);
    }
  }
  std::map<std::string, ActivationQuant> params;
  for (const auto& t : tensors) {
    const std::string root = groups.find(t);
    params[t] = fixed_groups.count(root) ? ActivationQuant{1.0F / 255.0F, -128}
                                         : activation_quant(group_range.at(root));
  }
  return params;
}

// The shortest "qdq:" prefix, with leading '_', that no name of the model starts with.
std::string unused_prefix(const onnx::GraphProto& source) {
  std::set<std::string> existing;
  for (const auto& n : source.node()) {
    for (const auto& o : n.output()) existing.insert(o);
  }
  for (const auto& t : source.initializer()) existing.insert(t.name());
  for (const auto& v : source.input()) existing.insert(v.name());
  // "qdq:", "_qdq:", "__qdq:", ...: the first no existing name starts with. Built whole each time
  // rather than by insert(0, ...), which GCC 12 flags with a false -Wrestrict at -O2.
  for (std::size_t underscores = 0;; ++underscores) {
    std::string prefix = std::string(underscores, '_') + "qdq:";
    if (std::none_of(existing.begin(), existing.end(),
                     [&](const std::string& e) { return e.rfind(prefix, 0) == 0; })) {
      return prefix;
    }
  }
}

// Rewrites one graph: the nodes in order, each quantized activation followed by its Q/DQ pair,
// and each quantized conv reading int8 weights (and an int32 bias) through DequantizeLinear.
class QdqRewrite {
 public:
  QdqRewrite(const onnx::GraphProto& source, const std::map<std::string, ActivationRange>& ranges,
             const std::set<std::string>& keep_fp32, const WeightPlan& plan)
      : source_(source),
        keep_fp32_(keep_fp32),
        plan_(plan),
        index_(index_graph(source)),
        tensors_(quantized_tensors(source, keep_fp32)),
        quantized_(tensors_.begin(), tensors_.end()),
        params_(tensor_params(source, index_, tensors_, ranges, keep_fp32)),
        prefix_(unused_prefix(source)) {
    for (std::size_t k = 0; k < tensors_.size(); ++k) number_[tensors_[k]] = std::to_string(k);
    for (const auto& t : tensors_) {
      if (boundary(t)) rewired_[t] = derived('d', t);
    }
  }

  void run(onnx::GraphProto& graph) {
    if (quantized_.count(index_.input)) emit_qdq(index_.input);
    for (const auto& original : source_.node()) {
      onnx::NodeProto node = original;
      for (int k = 0; k < node.input_size(); ++k) {
        if (auto it = rewired_.find(node.input(k)); it != rewired_.end()) {
          node.set_input(k, it->second);
        }
      }
      for (int k = 0; k < node.output_size(); ++k) {
        const std::string& out = node.output(k);
        if (quantized_.count(out) && !boundary(out)) node.set_output(k, derived('f', out));
      }
      if (!keep_fp32_.count(node.name()) && quant_io(source_, index_, original) &&
          original.op_type() == "Conv") {
        quantize_conv(node, original.input(0));
      }
      nodes_.push_back(std::move(node));
      for (const auto& out : original.output()) {
        if (quantized_.count(out)) emit_qdq(out);
      }
    }
    graph.clear_node();
    for (auto& n : nodes_) *graph.add_node() = std::move(n);
    remove_replaced(graph);
    for (auto& t : initializers_) *graph.add_initializer() = std::move(t);
  }

 private:
  // Short derived names (see runtime/quantize/quantizer.h): tensor k has scale s<k>, zero point
  // z<k>, int8 value q<k>, and either its producer writes f<k> and the DequantizeLinear writes the
  // original name (consumers unchanged), or, for the graph input and graph outputs, whose names
  // must stay, the DequantizeLinear writes d<k> and consumers are rewired to it.
  std::string derived(char kind, const std::string& t) const {
    std::string name = prefix_;
    name += kind;
    name += number_.at(t);
    return name;
  }
  bool boundary(const std::string& t) const { return t == index_.input || index_.outputs.count(t); }

  void emit_qdq(const std::string& t) {
    const ActivationQuant& q = params_.at(t);
    const std::string scale = derived('s', t), zero = derived('z', t), value = derived('q', t);
    initializers_.push_back(
        make_tensor(scale, onnx::TensorProto::FLOAT, {}, std::vector<float>{q.scale}));
    initializers_.push_back(
        make_tensor(zero, onnx::TensorProto::INT8, {}, std::vector<std::int8_t>{q.zero_point}));
    const bool keeps_name = boundary(t);
    nodes_.push_back(
        make_node("QuantizeLinear", {keeps_name ? t : derived('f', t), scale, zero}, value));
    nodes_.push_back(
        make_node("DequantizeLinear", {value, scale, zero}, keeps_name ? derived('d', t) : t));
  }

  void quantize_conv(onnx::NodeProto& node, const std::string& original_input) {
    const std::string w = node.input(1);
    if (!weights_.count(w)) quantize_weights(w);
    node.set_input(1, prefix_ + "wd" + weights_.at(w).first);
    if (node.input_size() < 3 || node.input(2).empty() || !quantized_.count(original_input)) {
      return;
    }
    const auto shift = plan_.bias_shift.find(node.name());
    quantize_bias(node, w, params_.at(original_input).scale,
                  shift == plan_.bias_shift.end() ? nullptr : &shift->second);
  }

  // Symmetric per-output-channel int8 weights: the plan's, or rounded to nearest.
  void quantize_weights(const std::string& w) {
    const onnx::TensorProto& wt = *index_.initializers.at(w);
    const std::int64_t channels = wt.dims(0);
    const auto planned = plan_.weights.find(w);
    const Int8Weights int8 = planned != plan_.weights.end()
                                 ? planned->second
                                 : round_to_nearest(read_floats(wt), channels);
    const std::vector<std::int8_t>& q = int8.values;
    const std::vector<float>& scales = int8.scales;
    const std::string id = std::to_string(weights_.size());
    const std::vector<std::int64_t> dims(wt.dims().begin(), wt.dims().end());
    initializers_.push_back(make_tensor(prefix_ + "w" + id, onnx::TensorProto::INT8, dims, q));
    initializers_.push_back(
        make_tensor(prefix_ + "ws" + id, onnx::TensorProto::FLOAT, {channels}, scales));
    // No zero point input: it defaults to 0, which symmetric weights have.
    nodes_.push_back(make_node("DequantizeLinear", {prefix_ + "w" + id, prefix_ + "ws" + id},
                               prefix_ + "wd" + id, 0));
    weights_[w] = {id, scales};
    replaced_.insert(w);
  }

  // An int32 bias at scale s_x * s_w[o], after `shift` (bias correction) when given; it stays
  // float when it is not a float initializer of one value per channel, or when a value is beyond
  // int32 at that scale (rather than saturating).
  void quantize_bias(onnx::NodeProto& node, const std::string& w, float input_scale,
                     const std::vector<float>* shift) {
    const std::string b = node.input(2);
    auto bit = index_.initializers.find(b);
    if (bit == index_.initializers.end() || !is_float_type(bit->second->data_type())) return;
    std::vector<float> bias = read_floats(*bit->second);
    if (shift && shift->size() == bias.size()) {
      for (std::size_t c = 0; c < bias.size(); ++c) bias[c] += (*shift)[c];
    }
    const std::vector<float>& ws = weights_.at(w).second;
    if (bias.size() != ws.size()) return;
    std::vector<float> scales(bias.size());
    std::vector<std::int32_t> q(bias.size());
    for (std::size_t c = 0; c < bias.size(); ++c) {
      scales[c] = input_scale * ws[c];
      const double v = std::nearbyint(static_cast<double>(bias[c]) / scales[c]);
      if (!(std::abs(v) < 2147483647.0)) return;
      q[c] = static_cast<std::int32_t>(v);
    }
    const std::string id = std::to_string(bias_count_++);
    const auto channels = static_cast<std::int64_t>(bias.size());
    initializers_.push_back(
        make_tensor(prefix_ + "b" + id, onnx::TensorProto::INT32, {channels}, q));
    initializers_.push_back(
        make_tensor(prefix_ + "bs" + id, onnx::TensorProto::FLOAT, {channels}, scales));
    nodes_.push_back(make_node("DequantizeLinear", {prefix_ + "b" + id, prefix_ + "bs" + id},
                               prefix_ + "bd" + id, 0));
    node.set_input(2, prefix_ + "bd" + id);
    replaced_.insert(b);
  }

  // Float weights and biases that only quantized convs read go away, also from the graph inputs
  // (initializers listed as graph inputs, IR < 4, must not name removed ones).
  void remove_replaced(onnx::GraphProto& graph) const {
    std::set<std::string> still_read;
    for (const auto& n : graph.node()) {
      for (const auto& in : n.input()) still_read.insert(in);
    }
    auto gone = [&](const std::string& name) {
      return replaced_.count(name) && !still_read.count(name);
    };
    auto* inits = graph.mutable_initializer();
    for (int i = inits->size() - 1; i >= 0; --i) {
      if (gone(inits->Get(i).name())) inits->DeleteSubrange(i, 1);
    }
    auto* inputs = graph.mutable_input();
    for (int i = inputs->size() - 1; i >= 0; --i) {
      if (gone(inputs->Get(i).name())) inputs->DeleteSubrange(i, 1);
    }
  }

  const onnx::GraphProto& source_;
  const std::set<std::string>& keep_fp32_;
  const WeightPlan& plan_;
  const GraphIndex index_;
  // The quantized tensors in quantized_tensors() order (their numbers in derived names).
  const std::vector<std::string> tensors_;
  const std::set<std::string> quantized_;
  const std::map<std::string, ActivationQuant> params_;
  // Distinct from every name the model already uses.
  const std::string prefix_;
  std::map<std::string, std::string> number_;
  // Graph input and outputs: the DequantizeLinear output their consumers read instead.
  std::map<std::string, std::string> rewired_;
  std::vector<onnx::TensorProto> initializers_;
  std::vector<onnx::NodeProto> nodes_;
  // Float initializers replaced by int8 weights or int32 biases.
  std::set<std::string> replaced_;
  // Per weight initializer: its number (for the derived names) and channel scales.
  std::map<std::string, std::pair<std::string, std::vector<float>>> weights_;
  int bias_count_ = 0;
};

}  // namespace

onnx::ModelProto build_qdq_model(const onnx::ModelProto& fp32,
                                 const std::map<std::string, ActivationRange>& ranges,
                                 const std::set<std::string>& keep_fp32, const WeightPlan& plan) {
  if (default_opset(fp32) < 13) {
    throw QuantizeError("the model's opset is " + std::to_string(default_opset(fp32)) +
                        "; per-channel DequantizeLinear needs 13 (raise it first)");
  }
  onnx::ModelProto model = fp32;
  QdqRewrite(fp32.graph(), ranges, keep_fp32, plan).run(*model.mutable_graph());
  return model;
}

}  // namespace yolo::runtime
