// SPDX-License-Identifier: Apache-2.0
#include "runtime/ops/registry.h"

#include <algorithm>
#include <cstring>

#include "runtime/model/model_error.h"

namespace yolo::runtime::ops {

namespace {

const Registry& registry() {
  static const Registry instance = [] {
    Registry r;
    register_elementwise_ops(r);
    register_shape_ops(r);
    register_data_ops(r);
    register_reduce_ops(r);
    register_nn_ops(r);
    register_misc_ops(r);
    register_internal_ops(r);
    register_int8_ops(r);
    return r;
  }();
  return instance;
}

// Runs compute() on fixed dense views. The views point into shapes_, which is filled completely
// before any view is made, so it never reallocates under them.
class ComputeStep : public Step {
 public:
  ComputeStep(const OpSpec& spec, const StepContext& context) : spec_(spec), node_(context.node) {
    for (const auto& v : context.inputs) shapes_.push_back(v.physical);
    for (const auto& v : context.outputs) shapes_.push_back(v.physical);
    std::size_t s = 0;
    for (const auto& v : context.inputs) {
      inputs_.emplace_back(v.dtype, shapes_[s++], v.data);
    }
    for (const auto& v : context.outputs) {
      outputs_.emplace_back(v.dtype, shapes_[s++], v.data);
    }
  }
  void run(pthreadpool_t pool) override { spec_.compute_threaded(node_, inputs_, outputs_, pool); }

 private:
  const OpSpec& spec_;
  Node node_;
  std::vector<Shape> shapes_;
  std::vector<kernels::ConstTensorRef> inputs_;
  std::vector<kernels::TensorRef> outputs_;
};

}  // namespace

void OpSpec::check(const Graph& /*graph*/, const Node& /*node*/) const {}

void OpSpec::compute(const Node& node, std::span<const kernels::ConstTensorRef> /*inputs*/,
                     std::span<const kernels::TensorRef> /*outputs*/) const {
  throw ModelError("node '" + node.name + "' (" + node.op_type +
                   ") has no row-major implementation; this is a bug in the planner");
}

std::unique_ptr<Step> OpSpec::create_step(const StepContext& context) const {
  return make_compute_step(*this, context);
}

std::unique_ptr<Step> make_compute_step(const OpSpec& spec, const StepContext& context) {
  return std::make_unique<ComputeStep>(spec, context);
}

const OpSpec* find_op(const std::string& domain, const std::string& op_type) {
  const auto& r = registry();
  const auto it = r.find({domain, op_type});
  return it == r.end() ? nullptr : it->second.get();
}

std::string supported_ops() {
  std::string names;
  for (const auto& [key, spec] : registry()) {
    if (key.first.empty()) names += (names.empty() ? "" : ", ") + key.second;
  }
  return names;
}

std::vector<std::pair<std::string, const OpSpec*>> ops_with_int8() {
  std::vector<std::pair<std::string, const OpSpec*>> ops;
  for (const auto& [key, spec] : registry()) {
    if (key.first.empty() && spec->int8()) ops.emplace_back(key.second, spec.get());
  }
  return ops;
}

const Value& input_value(const Graph& graph, const Node& node, std::size_t i) {
  if (!has_input(node, i)) graph.fail(node, "input " + std::to_string(i) + " is required");
  return graph.value(node.inputs[i]);
}

Value& output_value(Graph& graph, const Node& node, std::size_t i) {
  return graph.value(node.outputs.at(i));
}

void set_output(Graph& graph, const Node& node, std::size_t i, DType dtype, Shape shape) {
  if (i >= node.outputs.size() || node.outputs[i] < 0) return;
  check_tensor_size(shape, dtype,
                    graph.where + ": " + graph.describe(node) + " output " + std::to_string(i));
  auto& v = output_value(graph, node, i);
  v.dtype = dtype;
  v.shape = std::move(shape);
  v.has_shape = true;
}

bool has_input(const Node& node, std::size_t i) {
  return i < node.inputs.size() && node.inputs[i] >= 0;
}

std::vector<std::int64_t> constant_ints(const Graph& graph, const Node& node, std::size_t i,
                                        const char* what) {
  const auto& v = input_value(graph, node, i);
  if (!v.constant) {
    graph.fail(node, std::string(what) + " (input '" + v.name +
                         "') must be constant: the runtime plans static shapes");
  }
  return kernels::read_int64_values(*v.constant, node.op_type.c_str());
}

std::vector<float> constant_floats(const Graph& graph, const Node& node, std::size_t i,
                                   const char* what) {
  const auto& v = input_value(graph, node, i);
  if (!v.constant || v.constant->dtype() != DType::kFloat32) {
    graph.fail(node, std::string(what) + " (input '" + v.name + "') must be a float constant");
  }
  const auto values = v.constant->values<float>();
  return {values.begin(), values.end()};
}

void check_arity(const Graph& graph, const Node& node, int min_inputs, int max_inputs,
                 int outputs) {
  const int n = node.input_count();
  if (n < min_inputs || n > max_inputs) {
    graph.fail(node, "has " + std::to_string(n) + " inputs, expected " +
                         (min_inputs == max_inputs
                              ? std::to_string(min_inputs)
                              : std::to_string(min_inputs) + " to " + std::to_string(max_inputs)));
  }
  for (int i = 0; i < min_inputs; ++i) {
    if (!has_input(node, static_cast<std::size_t>(i))) {
      graph.fail(node, "required input " + std::to_string(i) + " is empty");
    }
  }
  if (outputs >= 0 && static_cast<int>(node.outputs.size()) != outputs) {
    graph.fail(node, "has " + std::to_string(node.outputs.size()) + " outputs, expected " +
                         std::to_string(outputs));
  }
}

void check_input_dtype(const Graph& graph, const Node& node, std::size_t i,
                       std::initializer_list<DType> allowed) {
  if (!has_input(node, i)) return;
  const auto& v = input_value(graph, node, i);
  if (std::find(allowed.begin(), allowed.end(), v.dtype) != allowed.end()) return;
  std::string names;
  for (auto t : allowed) names += std::string(names.empty() ? "" : ", ") + dtype_name(t);
  graph.fail(node, "input " + std::to_string(i) + " ('" + v.name + "') is " + dtype_name(v.dtype) +
                       "; supported: " + names);
}

void check_attributes(const Graph& graph, const Node& node,
                      std::initializer_list<const char*> known) {
  for (const auto& a : node.attributes) {
    const bool ok =
        std::any_of(known.begin(), known.end(), [&](const char* k) { return a.name() == k; });
    if (!ok) graph.fail(node, "attribute '" + a.name() + "' is not supported");
  }
}

}  // namespace yolo::runtime::ops
