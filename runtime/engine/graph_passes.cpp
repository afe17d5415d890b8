// SPDX-License-Identifier: Apache-2.0
#include "runtime/engine/graph_passes.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/model/model_error.h"
#include "runtime/ops/op.h"

namespace yolo::runtime {

namespace {

std::string unsupported_message(const Graph& graph, const Node& node) {
  return "op '" + (node.domain.empty() ? "" : node.domain + ".") + node.op_type + "' (opset " +
         std::to_string(graph.opset) + ") at node '" + node.name +
         "' is not supported by the runtime; supported ops: " + ops::supported_ops();
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

bool is_op(const Node& node, const char* op) {
  return node.domain.empty() && node.op_type == op;
}

}  // namespace

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
