// SPDX-License-Identifier: Apache-2.0
#include "runtime/graph_passes.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/model_error.h"
#include "runtime/ops/op.h"

namespace yolo::runtime {

namespace {

std::string unsupported_message(const Graph& graph, const Node& node) {
  std::string supported;
  for (const auto& name : ops::supported_ops()) supported += (supported.empty() ? "" : ", ") + name;
  return "op '" + (node.domain.empty() ? "" : node.domain + ".") + node.op_type + "' (opset " +
         std::to_string(graph.opset) + ") at node '" + node.name +
         "' is not supported by the runtime; supported ops: " + supported;
}

// Runs a node on constant tensors through the same step the engine would run.
void fold_node(Graph& graph, const Node& node, const ops::OpSpec& spec) {
  std::vector<std::shared_ptr<Tensor>> results;
  ops::StepContext context{graph, node, {}, {}};
  for (int id : node.inputs) {
    ops::ValueView view;
    if (id >= 0) {
      const auto& v = graph.value(id);
      view.dtype = v.dtype;
      view.shape = view.physical = v.shape;
      view.data = const_cast<void*>(v.constant->data());
      view.constant = v.constant.get();
    }
    context.inputs.push_back(std::move(view));
  }
  for (int id : node.outputs) {
    ops::ValueView view;
    if (id >= 0) {
      const auto& v = graph.value(id);
      auto t = std::make_shared<Tensor>(v.dtype, v.shape);
      view.dtype = v.dtype;
      view.shape = view.physical = v.shape;
      view.data = t->data();
      results.push_back(std::move(t));
    } else {
      results.emplace_back();
    }
    context.outputs.push_back(std::move(view));
  }
  try {
    auto step = spec.create_step(context);
    step->setup(nullptr);
    step->run(nullptr);
  } catch (const ModelError&) {
    throw;
  } catch (const std::exception& e) {
    graph.fail(node, std::string("cannot be computed at load: ") + e.what());
  }
  for (std::size_t i = 0; i < node.outputs.size(); ++i) {
    if (node.outputs[i] >= 0) graph.value(node.outputs[i]).constant = std::move(results[i]);
  }
}

}  // namespace

int infer_and_fold(Graph& graph) {
  std::vector<bool> folded(graph.nodes.size(), false);
  int count = 0;
  for (std::size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = graph.nodes[n];
    const ops::OpSpec* spec = ops::find_op(node.domain, node.op_type);
    if (!spec) throw ModelError(graph.where + ": " + unsupported_message(graph, node));
    bool all_constant = true;
    for (int id : node.inputs) {
      if (id < 0) continue;
      const auto& v = graph.value(id);
      if (!v.has_shape) {
        graph.fail(node, "the shape of input '" + v.name + "' is unknown");
      }
      if (!v.constant) all_constant = false;
    }
    try {
      spec->check(graph, node);
      spec->infer(graph, node);
    } catch (const ModelError&) {
      throw;
    } catch (const std::exception& e) {
      graph.fail(node, e.what());
    }
    bool outputs_constant = true;
    for (int id : node.outputs) {
      if (id >= 0 && !graph.value(id).constant) {
        outputs_constant = false;
      }
    }
    if (!outputs_constant && all_constant && spec->foldable()) {
      fold_node(graph, node, *spec);
      outputs_constant = true;
    }
    if (outputs_constant) {
      folded[n] = true;
      ++count;
    }
  }
  graph.remove_nodes(folded);
  return count;
}

namespace {

// The single node reading `value`, or -1 when none or several do (or it is a graph output).
int sole_consumer(const Graph& graph, const std::vector<std::vector<int>>& consumers, int value) {
  if (value < 0 || graph.value(value).graph_output) return -1;
  const auto& c = consumers[static_cast<std::size_t>(value)];
  return c.size() == 1 ? c[0] : -1;
}

const Tensor* constant_of(const Graph& graph, int value) {
  return value < 0 ? nullptr : graph.value(value).constant.get();
}

// Value i of a per-tensor (one element) or per-channel (n elements) quantization parameter.
float param_at(const Tensor& t, std::int64_t i) {
  const std::int64_t k = t.size() == 1 ? 0 : i;
  switch (t.dtype()) {
    case DType::kFloat32:
      return t.data_as<float>()[k];
    case DType::kInt8:
      return t.data_as<std::int8_t>()[k];
    case DType::kUInt8:
      return t.data_as<std::uint8_t>()[k];
    case DType::kInt32:
      return static_cast<float>(t.data_as<std::int32_t>()[k]);
    default:
      return static_cast<float>(t.data_as<std::int64_t>()[k]);
  }
}

bool is_op(const Node& node, const char* op) {
  return node.domain.empty() && node.op_type == op;
}

}  // namespace

Int8FoldStats fold_dynamic_int8(Graph& graph) {
  Int8FoldStats stats;
  const auto consumers = graph.consumers();
  std::vector<bool> dead(graph.nodes.size(), false);
  for (std::size_t n = 0; n < graph.nodes.size(); ++n) {
    Node& node = graph.nodes[n];
    const bool conv = is_op(node, "ConvInteger");
    if (!conv && !is_op(node, "MatMulInteger")) continue;
    // x_q, w_q, x_zero_point, w_zero_point from DynamicQuantizeLinear(x) and constants.
    const int xq = node.input(0);
    const int xp = xq >= 0 ? graph.value(xq).producer : -1;
    if (xp < 0 || !is_op(graph.nodes[static_cast<std::size_t>(xp)], "DynamicQuantizeLinear")) {
      continue;
    }
    const Node& dql = graph.nodes[static_cast<std::size_t>(xp)];
    if (dql.outputs.size() < 3 || node.input(2) != dql.outputs[2]) continue;
    const Tensor* wq = constant_of(graph, node.input(1));
    const Tensor* wzp = constant_of(graph, node.input(3));
    if (!wq || (node.input(3) >= 0 && !wzp)) continue;
    if (wq->dtype() != DType::kInt8 && wq->dtype() != DType::kUInt8) continue;
    // Cast(to float) -> Mul(., x_scale * w_scale)
    const int cast_n = sole_consumer(graph, consumers, node.outputs[0]);
    if (cast_n < 0 || !is_op(graph.nodes[static_cast<std::size_t>(cast_n)], "Cast")) continue;
    const Node& cast = graph.nodes[static_cast<std::size_t>(cast_n)];
    if (cast.attr_int("to", 0) != onnx::TensorProto::FLOAT) continue;
    const int mul_n = sole_consumer(graph, consumers, cast.outputs[0]);
    if (mul_n < 0 || !is_op(graph.nodes[static_cast<std::size_t>(mul_n)], "Mul")) continue;
    const Node& mul = graph.nodes[static_cast<std::size_t>(mul_n)];
    const int scale = mul.input(0) == cast.outputs[0] ? mul.input(1) : mul.input(0);
    const int sp = graph.value(scale).producer;
    if (sp < 0 || !is_op(graph.nodes[static_cast<std::size_t>(sp)], "Mul")) continue;
    const Node& scale_mul = graph.nodes[static_cast<std::size_t>(sp)];
    const int other = scale_mul.input(0) == dql.outputs[1]   ? scale_mul.input(1)
                      : scale_mul.input(1) == dql.outputs[1] ? scale_mul.input(0)
                                                             : -1;
    const Tensor* wscale = constant_of(graph, other);
    if (!wscale || wscale->dtype() != DType::kFloat32) continue;

    const Shape& ws = wq->shape();
    // Output channels: dim 0 of OIHW conv weights, the last dim of [K, N] matmul weights.
    const std::int64_t channels = conv ? ws.at(0) : ws.back();
    if ((wscale->size() != 1 && wscale->size() != channels) ||
        (wzp && wzp->size() != 1 && wzp->size() != channels)) {
      continue;
    }
    auto weights = std::make_shared<Tensor>(DType::kFloat32, ws);
    const std::int64_t count = wq->size();
    const std::int64_t per_channel = conv ? count / std::max<std::int64_t>(channels, 1) : 1;
    for (std::int64_t i = 0; i < count; ++i) {
      const std::int64_t c = conv ? i / per_channel : i % channels;
      const float q = wq->dtype() == DType::kInt8 ? wq->data_as<std::int8_t>()[i]
                                                  : wq->data_as<std::uint8_t>()[i];
      const float zp = wzp ? param_at(*wzp, c) : 0.0F;
      weights->data_as<float>()[i] = (q - zp) * param_at(*wscale, c);
    }
    Value wv;
    wv.name = node.name + "/dequantized_weights";
    wv.dtype = DType::kFloat32;
    wv.shape = ws;
    wv.has_shape = true;
    wv.constant = std::move(weights);
    const int w_id = graph.add_value(std::move(wv));

    int result = mul.outputs[0];
    int bias = -1;
    dead[static_cast<std::size_t>(cast_n)] = dead[static_cast<std::size_t>(mul_n)] = true;
    // A following Add of a per-channel constant is the conv's bias.
    const int add_n = conv ? sole_consumer(graph, consumers, result) : -1;
    if (add_n >= 0 && is_op(graph.nodes[static_cast<std::size_t>(add_n)], "Add")) {
      const Node& add = graph.nodes[static_cast<std::size_t>(add_n)];
      const int b = add.input(0) == result ? add.input(1) : add.input(0);
      const Tensor* bt = constant_of(graph, b);
      const Shape& bs = bt ? bt->shape() : Shape{};
      const bool per_channel_bias =
          bt && bt->dtype() == DType::kFloat32 && bt->size() == channels &&
          (bs == Shape{channels} || bs == Shape{1, channels, 1, 1} || bs == Shape{channels, 1, 1});
      if (per_channel_bias) {
        auto flat = std::make_shared<Tensor>(DType::kFloat32, Shape{channels});
        std::copy(bt->data_as<float>(), bt->data_as<float>() + channels, flat->data_as<float>());
        Value bv;
        bv.name = node.name + "/bias";
        bv.dtype = DType::kFloat32;
        bv.shape = {channels};
        bv.has_shape = true;
        bv.constant = std::move(flat);
        bias = graph.add_value(std::move(bv));
        result = add.outputs[0];
        dead[static_cast<std::size_t>(add_n)] = true;
      }
    }
    node.op_type = conv ? "Conv" : "MatMul";
    node.inputs = {dql.inputs[0], w_id};
    if (bias >= 0) node.inputs.push_back(bias);
    node.outputs = {result};
    if (!conv) node.attributes.clear();
    ++(conv ? stats.conv : stats.matmul);
  }
  graph.remove_nodes(dead);
  graph.remove_unused();
  return stats;
}

FusionStats fuse_activations(Graph& graph) {
  FusionStats stats;
  {
    const auto consumers = graph.consumers();
    std::vector<bool> dead(graph.nodes.size(), false);
    for (auto& node : graph.nodes) {
      if (!is_op(node, "Mul") || node.input_count() != 2) continue;
      for (int k = 0; k < 2; ++k) {
        const int s = node.inputs[static_cast<std::size_t>(k)];
        const int x = node.inputs[static_cast<std::size_t>(1 - k)];
        const int p = graph.value(s).producer;
        if (p < 0 || !is_op(graph.nodes[static_cast<std::size_t>(p)], "Sigmoid")) continue;
        if (graph.nodes[static_cast<std::size_t>(p)].inputs[0] != x) continue;
        if (graph.value(x).dtype != DType::kFloat32) continue;
        if (sole_consumer(graph, consumers, s) < 0) continue;
        dead[static_cast<std::size_t>(p)] = true;
        node.op_type = "SiLU";
        node.domain = "yolo";
        node.inputs = {x};
        ++stats.silu;
        break;
      }
    }
    graph.remove_nodes(dead);
  }
  const auto consumers = graph.consumers();
  std::vector<bool> dead(graph.nodes.size(), false);
  for (std::size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& act = graph.nodes[n];
    const bool silu = act.domain == "yolo" && act.op_type == "SiLU";
    const bool relu = is_op(act, "Relu");
    const bool clip = is_op(act, "Clip");
    if (!silu && !relu && !clip) continue;
    const int x = act.input(0);
    const int p = graph.value(x).producer;
    if (p < 0 || sole_consumer(graph, consumers, x) != static_cast<int>(n)) continue;
    Node& conv = graph.nodes[static_cast<std::size_t>(p)];
    if (!is_op(conv, "Conv") || conv.has_attribute("yolo_activation") ||
        conv.has_attribute("yolo_min")) {
      continue;
    }
    auto set_float = [&](const char* key, float v) {
      onnx::AttributeProto a;
      a.set_name(key);
      a.set_type(onnx::AttributeProto::FLOAT);
      a.set_f(v);
      conv.attributes.push_back(a);
    };
    if (silu) {
      onnx::AttributeProto a;
      a.set_name("yolo_activation");
      a.set_type(onnx::AttributeProto::STRING);
      a.set_s("silu");
      conv.attributes.push_back(a);
      ++stats.conv_silu;
    } else {
      float lo = relu ? 0.0F : -std::numeric_limits<float>::infinity();
      float hi = std::numeric_limits<float>::infinity();
      if (clip) {
        if (const auto* a = act.find_attribute("min")) lo = a->f();
        if (const auto* a = act.find_attribute("max")) hi = a->f();
        const Tensor* tmin = constant_of(graph, act.input(1));
        const Tensor* tmax = constant_of(graph, act.input(2));
        if ((act.input(1) >= 0 && (!tmin || tmin->dtype() != DType::kFloat32)) ||
            (act.input(2) >= 0 && (!tmax || tmax->dtype() != DType::kFloat32))) {
          continue;
        }
        if (tmin) lo = *tmin->data_as<float>();
        if (tmax) hi = *tmax->data_as<float>();
      }
      set_float("yolo_min", lo);
      set_float("yolo_max", hi);
      ++stats.conv_clamp;
    }
    conv.outputs[0] = act.outputs[0];
    dead[n] = true;
  }
  graph.remove_nodes(dead);
  graph.remove_unused();
  return stats;
}

}  // namespace yolo::runtime
