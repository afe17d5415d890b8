// SPDX-License-Identifier: Apache-2.0
// ReduceMax/Min/Sum/Mean/Prod and ArgMax/ArgMin (row-major kernels).
#include <stdexcept>

#include "runtime/kernels/reduce.h"
#include "runtime/ops/registry.h"

namespace yolo::runtime::ops {

namespace {

using kernels::ArgOp;
using kernels::ReduceOp;

class ReduceSpec : public OpSpec {
 public:
  explicit ReduceSpec(ReduceOp op) : op_(op) {}
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, 1, 2, 1);
    check_attributes(graph, node, {"axes", "keepdims", "noop_with_empty_axes"});
    check_input_dtype(graph, node, 0, {DType::kFloat32, DType::kInt64, DType::kInt32});
  }
  std::vector<std::int64_t> axes(const Graph& graph, const Node& node) const {
    const auto given =
        has_input(node, 1) ? constant_ints(graph, node, 1, "axes") : node.attr_ints("axes");
    try {
      return kernels::reduce_axes(
          op_, static_cast<std::int64_t>(input_value(graph, node, 0).shape.size()), given,
          node.attr_int("noop_with_empty_axes", 0) != 0);
    } catch (const std::invalid_argument& e) {
      graph.fail(node, e.what());
    }
  }
  void infer(Graph& graph, const Node& node) const override {
    const auto& in = input_value(graph, node, 0);
    set_output(
        graph, node, 0, in.dtype,
        kernels::reduce_shape(in.shape, axes(graph, node), node.attr_int("keepdims", 1) != 0));
  }
  std::unique_ptr<Step> create_step(const StepContext& context) const override {
    return std::make_unique<ReduceStep>(op_, axes(context.graph, context.node), context);
  }

 private:
  class ReduceStep : public Step {
   public:
    ReduceStep(ReduceOp op, std::vector<std::int64_t> axes, const StepContext& context)
        : op_(op), axes_(std::move(axes)), in_(context.inputs[0]), out_(context.outputs[0]) {}
    void run(pthreadpool_t) override { kernels::reduce(op_, in_.cref(), axes_, out_.ref()); }

   private:
    ReduceOp op_;
    std::vector<std::int64_t> axes_;
    ValueView in_, out_;
  };
  ReduceOp op_;
};

class ArgSpec : public OpSpec {
 public:
  explicit ArgSpec(ArgOp op) : op_(op) {}
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, 1, 1, 1);
    check_attributes(graph, node, {"axis", "keepdims", "select_last_index"});
    check_input_dtype(graph, node, 0, {DType::kFloat32, DType::kInt64, DType::kInt32});
  }
  void infer(Graph& graph, const Node& node) const override {
    const auto& in = input_value(graph, node, 0);
    try {
      set_output(graph, node, 0, DType::kInt64,
                 kernels::arg_reduce_shape(in.shape, node.attr_int("axis", 0),
                                           node.attr_int("keepdims", 1) != 0));
    } catch (const std::invalid_argument& e) {
      graph.fail(node, e.what());
    }
  }
  void compute(const Node& node, std::span<const kernels::ConstTensorRef> in,
               std::span<const kernels::TensorRef> out) const override {
    kernels::arg_reduce(op_, in[0], node.attr_int("axis", 0),
                        node.attr_int("select_last_index", 0) != 0, out[0]);
  }

 private:
  ArgOp op_;
};

}  // namespace

void register_reduce_ops(Registry& r) {
  add<ReduceSpec>(r, "ReduceMax", ReduceOp::kMax);
  add<ReduceSpec>(r, "ReduceMin", ReduceOp::kMin);
  add<ReduceSpec>(r, "ReduceSum", ReduceOp::kSum);
  add<ReduceSpec>(r, "ReduceMean", ReduceOp::kMean);
  add<ReduceSpec>(r, "ReduceProd", ReduceOp::kProd);
  add<ArgSpec>(r, "ArgMax", ArgOp::kArgMax);
  add<ArgSpec>(r, "ArgMin", ArgOp::kArgMin);
}

}  // namespace yolo::runtime::ops
