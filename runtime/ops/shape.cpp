// SPDX-License-Identifier: Apache-2.0
// Ops that only change a shape (Reshape, Flatten, Squeeze, Unsqueeze, Identity: the planner lets
// their output share the input's memory), Shape (always known at load, so always a constant),
// and the generators and broadcasts Expand, Tile, ConstantOfShape, Range.
#include <stdexcept>

#include "runtime/kernels/expand.h"
#include "runtime/kernels/shape_ops.h"
#include "runtime/ops/registry.h"

namespace yolo::runtime::ops {

namespace {

// Copies unless the planner placed the output on the input's memory.
class AliasStep : public Step {
 public:
  explicit AliasStep(const StepContext& context)
      : in_(context.inputs[0]), out_(context.outputs[0]), node_(context.node.op_type) {}
  void run(pthreadpool_t) override {
    if (in_.data != out_.data) kernels::copy(in_.cref(), out_.ref(), node_.c_str());
  }

 private:
  ValueView in_, out_;
  std::string node_;
};

class AliasSpec : public OpSpec {
 public:
  void compute(const Node& node, std::span<const kernels::ConstTensorRef> in,
               std::span<const kernels::TensorRef> out) const override {
    kernels::copy(in[0], out[0], node.op_type.c_str());
  }
  std::unique_ptr<Step> create_step(const StepContext& context) const override {
    return std::make_unique<AliasStep>(context);
  }
};

class ReshapeSpec : public AliasSpec {
 public:
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, 2, 2, 1);
    check_attributes(graph, node, {"allowzero"});
  }
  void infer(Graph& graph, const Node& node) const override {
    const auto& in = input_value(graph, node, 0);
    const auto requested = constant_ints(graph, node, 1, "the target shape");
    set_output(graph, node, 0, in.dtype, or_fail(graph, node, [&] {
                 return kernels::reshape_shape(in.shape, requested,
                                               node.attr_int("allowzero", 0) != 0);
               }));
  }
};

class FlattenSpec : public AliasSpec {
 public:
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, 1, 1, 1);
    check_attributes(graph, node, {"axis"});
  }
  void infer(Graph& graph, const Node& node) const override {
    const auto& in = input_value(graph, node, 0);
    set_output(graph, node, 0, in.dtype, or_fail(graph, node, [&] {
                 return kernels::flatten_shape(in.shape, node.attr_int("axis", 1));
               }));
  }
};

// Squeeze and Unsqueeze: axes from the attribute (opset < 13) or the second input.
class SqueezeSpec : public AliasSpec {
 public:
  explicit SqueezeSpec(bool unsqueeze) : unsqueeze_(unsqueeze) {}
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, unsqueeze_ && graph.opset >= 13 ? 2 : 1, 2, 1);
    check_attributes(graph, node, {"axes"});
  }
  void infer(Graph& graph, const Node& node) const override {
    const auto& in = input_value(graph, node, 0);
    const auto axes =
        has_input(node, 1) ? constant_ints(graph, node, 1, "axes") : node.attr_ints("axes");
    set_output(graph, node, 0, in.dtype, or_fail(graph, node, [&] {
                 return unsqueeze_ ? kernels::unsqueeze_shape(in.shape, axes)
                                   : kernels::squeeze_shape(in.shape, axes);
               }));
  }

 private:
  bool unsqueeze_;
};

class IdentitySpec : public AliasSpec {
 public:
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, 1, 1, 1);
    check_attributes(graph, node, {});
  }
  void infer(Graph& graph, const Node& node) const override {
    const auto& in = input_value(graph, node, 0);
    set_output(graph, node, 0, in.dtype, in.shape);
  }
  std::function<float(float)> unary_function(const Graph&, const Node&) const override {
    return [](float x) { return x; };
  }
};

// Shape: the input's shape is static, so the output is a constant made here.
class ShapeSpec : public OpSpec {
 public:
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, 1, 1, 1);
    check_attributes(graph, node, {"start", "end"});
  }
  void infer(Graph& graph, const Node& node) const override {
    const auto& in = input_value(graph, node, 0);
    std::optional<std::int64_t> start, end;
    if (node.has_attribute("start")) start = node.attr_int("start", 0);
    if (node.has_attribute("end")) end = node.attr_int("end", 0);
    const auto dims = kernels::shape_values(in.shape, start, end);
    auto t = std::make_shared<Tensor>(DType::kInt64, Shape{static_cast<std::int64_t>(dims.size())});
    std::copy(dims.begin(), dims.end(), t->data_as<std::int64_t>());
    set_output(graph, node, 0, DType::kInt64, t->shape());
    output_value(graph, node, 0).constant = std::move(t);
  }
};

// Expand and Tile: the output shape follows from the input's and the int values of constant input
// 1 (`what`: the target shape, the repeats); the kernel fills it.
class ShapeByIntsSpec : public OpSpec {
 public:
  using ShapeOf = Shape (*)(std::span<const std::int64_t>, std::span<const std::int64_t>);
  using Kernel = void (*)(kernels::ConstTensorRef, kernels::TensorRef);
  ShapeByIntsSpec(const char* what, ShapeOf shape_of, Kernel kernel)
      : what_(what), shape_of_(shape_of), kernel_(kernel) {}
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, 2, 2, 1);
    check_attributes(graph, node, {});
  }
  void infer(Graph& graph, const Node& node) const override {
    const auto& in = input_value(graph, node, 0);
    const auto ints = constant_ints(graph, node, 1, what_);
    set_output(graph, node, 0, in.dtype,
               or_fail(graph, node, [&] { return shape_of_(in.shape, ints); }));
  }
  void compute(const Node&, std::span<const kernels::ConstTensorRef> in,
               std::span<const kernels::TensorRef> out) const override {
    kernel_(in[0], out[0]);
  }

 private:
  const char* what_;
  ShapeOf shape_of_;
  Kernel kernel_;
};

class ConstantOfShapeSpec : public OpSpec {
 public:
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, 1, 1, 1);
    check_attributes(graph, node, {"value"});
  }
  static Tensor value(const Node& node) {
    if (const auto* a = node.find_attribute("value")) return tensor_from_proto(a->t(), node.name);
    return Tensor(DType::kFloat32, {1});
  }
  void infer(Graph& graph, const Node& node) const override {
    const auto dims = constant_ints(graph, node, 0, "the shape");
    const Tensor v = value(node);
    if (v.size() != 1) graph.fail(node, "value must hold exactly one element");
    set_output(graph, node, 0, v.dtype(),
               or_fail(graph, node, [&] { return kernels::constant_of_shape_shape(dims); }));
  }
  void compute(const Node& node, std::span<const kernels::ConstTensorRef>,
               std::span<const kernels::TensorRef> out) const override {
    const Tensor v = value(node);
    kernels::fill(v, out[0]);
  }
};

class RangeSpec : public OpSpec {
 public:
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, 3, 3, 1);
    check_attributes(graph, node, {});
    for (std::size_t i = 0; i < 3; ++i) {
      if (!input_value(graph, node, i).constant) {
        graph.fail(node, "start, limit and delta must be constants (static shapes)");
      }
    }
  }
  void infer(Graph& graph, const Node& node) const override {
    const auto& s = input_value(graph, node, 0);
    set_output(graph, node, 0, s.dtype, or_fail(graph, node, [&] {
                 return kernels::range_shape(*s.constant, *input_value(graph, node, 1).constant,
                                             *input_value(graph, node, 2).constant);
               }));
  }
  void compute(const Node&, std::span<const kernels::ConstTensorRef> in,
               std::span<const kernels::TensorRef> out) const override {
    kernels::range(in[0], in[2], out[0]);
  }
};

}  // namespace

void register_shape_ops(Registry& r) {
  add<ReshapeSpec>(r, "Reshape");
  add<FlattenSpec>(r, "Flatten");
  add<SqueezeSpec>(r, "Squeeze", false);
  add<SqueezeSpec>(r, "Unsqueeze", true);
  add<IdentitySpec>(r, "Identity").set_int8(kInt8Table);
  add<ShapeSpec>(r, "Shape");
  add<ShapeByIntsSpec>(r, "Expand", "the target shape", &kernels::expand_shape, &kernels::expand);
  add<ShapeByIntsSpec>(r, "Tile", "repeats", &kernels::tile_shape, &kernels::tile);
  add<ConstantOfShapeSpec>(r, "ConstantOfShape");
  add<RangeSpec>(r, "Range");
}

// Whether the op's output may share its input's memory.
bool is_alias_op(const Node& node) {
  return node.domain.empty() &&
         (node.op_type == "Reshape" || node.op_type == "Flatten" || node.op_type == "Squeeze" ||
          node.op_type == "Unsqueeze" || node.op_type == "Identity");
}

}  // namespace yolo::runtime::ops
