// SPDX-License-Identifier: Apache-2.0
// Concat, Split, Slice, Transpose, Gather, GatherElements, Pad. Along the channels of NHWC
// activations, Split and Slice are views the planner resolves (no step work) and Concat only
// copies the inputs whose producers could not write into its buffer directly.
#include <cstring>
#include <stdexcept>

#include "runtime/kernels/concat_split.h"
#include "runtime/kernels/gather.h"
#include "runtime/kernels/pad.h"
#include "runtime/kernels/slice.h"
#include "runtime/kernels/transpose.h"
#include "runtime/ops/registry.h"
#include "runtime/xnn/unary.h"

namespace yolo::runtime::ops {

namespace {

// Whether a node works along axis 1 of a 4-D float (or lowered int8) tensor (so it can run on
// NHWC channels).
bool on_channels(const Graph& graph, const Node& node, std::int64_t axis) {
  const auto& in = input_value(graph, node, 0);
  if ((in.dtype != DType::kFloat32 && in.dtype != DType::kInt8) || in.shape.size() != 4) {
    return false;
  }
  return axis == 1 || axis == -3;
}

// Does nothing at run time: its outputs are views of its input.
class ViewStep : public Step {
 public:
  void run(pthreadpool_t) override {}
};

// Copies the inputs that are not already in place into the concat's NHWC buffer.
class ConcatChannelsStep : public Step {
 public:
  explicit ConcatChannelsStep(const StepContext& context) {
    const auto& out = context.outputs[0];
    rows_ = static_cast<std::size_t>(out.pixels());
    std::int64_t offset = 0;
    for (const auto& in : context.inputs) {
      const std::size_t channels = static_cast<std::size_t>(in.shape[1]);
      const std::size_t in_stride = static_cast<std::size_t>(in.pixel_stride);
      if (out.dtype == DType::kInt8) {
        std::int8_t* dst = static_cast<std::int8_t*>(out.data) + offset;
        offset += in.shape[1];
        if (in.data != dst || in.pixel_stride != out.pixel_stride) {
          byte_copies_.push_back({static_cast<const std::int8_t*>(in.data), in_stride, dst,
                                  static_cast<std::size_t>(out.pixel_stride), channels});
        }
        continue;
      }
      float* dst = out.f32() + offset;
      offset += in.shape[1];
      if (in.data == dst && in.pixel_stride == out.pixel_stride) continue;
      copies_.push_back(
          {xnn::CopyX32(channels, in_stride, static_cast<std::size_t>(out.pixel_stride),
                        context.node.name),
           in.data, dst});
    }
  }
  void setup(pthreadpool_t pool) override {
    for (auto& c : copies_) c.op.setup(rows_, c.in, c.out, pool);
  }
  void run(pthreadpool_t pool) override {
    for (auto& c : copies_) c.op.run(pool);
    for (const auto& c : byte_copies_) {
      for (std::size_t r = 0; r < rows_; ++r) {
        std::memcpy(c.out + r * c.out_stride, c.in + r * c.in_stride, c.channels);
      }
    }
  }

 private:
  // int8 inputs (of lowered QDQ models) not in place.
  struct ByteCopy {
    const std::int8_t* in;
    std::size_t in_stride;
    std::int8_t* out;
    std::size_t out_stride;
    std::size_t channels;
  };
  std::vector<ByteCopy> byte_copies_;
  struct Copy {
    xnn::CopyX32 op;
    const void* in;
    void* out;
  };
  std::size_t rows_ = 0;
  std::vector<Copy> copies_;
};

class ConcatSpec : public OpSpec {
 public:
  ConcatSpec() : OpSpec({.reads_strided = true}) {}
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, 1, 1 << 16, 1);
    check_attributes(graph, node, {"axis"});
    if (!node.has_attribute("axis")) graph.fail(node, "attribute 'axis' is required");
  }
  void infer(Graph& graph, const Node& node) const override {
    std::vector<Shape> shapes;
    const DType type = input_value(graph, node, 0).dtype;
    for (std::size_t i = 0; i < node.inputs.size(); ++i) {
      const auto& v = input_value(graph, node, i);
      if (v.dtype != type) graph.fail(node, "inputs must share one element type");
      shapes.push_back(v.shape);
    }
    set_output(graph, node, 0, type, or_fail(graph, node, [&] {
                 return kernels::concat_shape(shapes, node.attr_int("axis", 0));
               }));
  }
  void compute(const Node& node, std::span<const kernels::ConstTensorRef> in,
               std::span<const kernels::TensorRef> out) const override {
    kernels::concat(in, node.attr_int("axis", 0), out[0]);
  }
  LayoutRule layout_rule(const Graph& graph, const Node& node) const override {
    return on_channels(graph, node, node.attr_int("axis", 0)) ? LayoutRule::kChannelAxis
                                                              : LayoutRule::kNchw;
  }
  std::unique_ptr<Step> create_step(const StepContext& context) const override {
    if (context.outputs[0].layout == Layout::kNhwc) {
      return std::make_unique<ConcatChannelsStep>(context);
    }
    return make_compute_step(*this, context);
  }
};

class SplitSpec : public OpSpec {
 public:
  SplitSpec() : OpSpec({.reads_strided = true}) {}
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, 1, 2, -1);
    check_attributes(graph, node, {"axis", "split", "num_outputs"});
  }
  std::vector<std::int64_t> sizes(const Graph& graph, const Node& node) const {
    const auto& in = input_value(graph, node, 0);
    const auto split =
        has_input(node, 1) ? constant_ints(graph, node, 1, "split") : node.attr_ints("split");
    const std::int64_t parts = node.attr_int("num_outputs", 0);
    return or_fail(graph, node, [&] {
      return kernels::split_sizes(
          in.shape, node.attr_int("axis", 0), split,
          parts > 0 ? parts : static_cast<std::int64_t>(node.outputs.size()), parts > 0);
    });
  }
  void infer(Graph& graph, const Node& node) const override {
    const auto& in = input_value(graph, node, 0);
    const auto s = sizes(graph, node);
    if (s.size() != node.outputs.size()) {
      graph.fail(node, "splits into " + std::to_string(s.size()) + " parts but has " +
                           std::to_string(node.outputs.size()) + " outputs");
    }
    const auto shapes = or_fail(
        graph, node, [&] { return kernels::split_shapes(in.shape, node.attr_int("axis", 0), s); });
    for (std::size_t i = 0; i < shapes.size(); ++i) set_output(graph, node, i, in.dtype, shapes[i]);
  }
  void compute(const Node& node, std::span<const kernels::ConstTensorRef> in,
               std::span<const kernels::TensorRef> out) const override {
    kernels::split(in[0], node.attr_int("axis", 0), out);
  }
  LayoutRule layout_rule(const Graph& graph, const Node& node) const override {
    return on_channels(graph, node, node.attr_int("axis", 0)) ? LayoutRule::kChannelAxis
                                                              : LayoutRule::kNchw;
  }
  std::unique_ptr<Step> create_step(const StepContext& context) const override {
    if (context.inputs[0].layout == Layout::kNhwc) return std::make_unique<ViewStep>();
    return make_compute_step(*this, context);
  }
};

}  // namespace

// The resolved Slice of a node (attributes before opset 10, constant inputs after).
kernels::SliceRange slice_range(const Graph& graph, const Node& node) {
  const auto& in = input_value(graph, node, 0);
  std::vector<std::int64_t> starts, ends, axes, steps;
  if (node.input_count() == 1) {
    starts = node.attr_ints("starts");
    ends = node.attr_ints("ends");
    axes = node.attr_ints("axes");
  } else {
    starts = constant_ints(graph, node, 1, "starts");
    ends = constant_ints(graph, node, 2, "ends");
    if (has_input(node, 3)) axes = constant_ints(graph, node, 3, "axes");
    if (has_input(node, 4)) steps = constant_ints(graph, node, 4, "steps");
  }
  return or_fail(graph, node,
                 [&] { return kernels::resolve_slice(in.shape, starts, ends, axes, steps); });
}

namespace {

class SliceSpec : public OpSpec {
 public:
  SliceSpec() : OpSpec({.reads_strided = true}) {}
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, 1, 5, 1);
    check_attributes(graph, node, {"starts", "ends", "axes"});
  }
  void infer(Graph& graph, const Node& node) const override {
    const auto range = slice_range(graph, node);
    set_output(graph, node, 0, input_value(graph, node, 0).dtype, range.shape);
  }
  LayoutRule layout_rule(const Graph& graph, const Node& node) const override {
    const auto& in = input_value(graph, node, 0);
    if ((in.dtype != DType::kFloat32 && in.dtype != DType::kInt8) || in.shape.size() != 4) {
      return LayoutRule::kNchw;
    }
    const auto r = slice_range(graph, node);
    for (std::size_t d = 0; d < 4; ++d) {
      if (d != 1 && r.shape[d] != in.shape[d]) return LayoutRule::kNchw;
    }
    return r.steps[1] == 1 ? LayoutRule::kChannelAxis : LayoutRule::kNchw;
  }
  std::unique_ptr<Step> create_step(const StepContext& context) const override {
    if (context.inputs[0].layout == Layout::kNhwc) return std::make_unique<ViewStep>();
    return std::make_unique<SliceStep>(slice_range(context.graph, context.node), context);
  }

 private:
  class SliceStep : public Step {
   public:
    SliceStep(kernels::SliceRange range, const StepContext& context)
        : range_(std::move(range)), in_(context.inputs[0]), out_(context.outputs[0]) {}
    void run(pthreadpool_t) override { kernels::slice(in_.cref(), range_, out_.ref()); }

   private:
    kernels::SliceRange range_;
    ValueView in_, out_;
  };
};

class TransposeSpec : public OpSpec {
 public:
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, 1, 1, 1);
    check_attributes(graph, node, {"perm"});
  }
  void infer(Graph& graph, const Node& node) const override {
    const auto& in = input_value(graph, node, 0);
    set_output(graph, node, 0, in.dtype, or_fail(graph, node, [&] {
                 return kernels::transpose_shape(in.shape, node.attr_ints("perm"));
               }));
  }
  void compute_threaded(const Node& node, std::span<const kernels::ConstTensorRef> in,
                        std::span<const kernels::TensorRef> out,
                        pthreadpool_t pool) const override {
    kernels::transpose(in[0], node.attr_ints("perm"), out[0], pool);
  }
};

class GatherSpec : public OpSpec {
 public:
  explicit GatherSpec(bool elements) : elements_(elements) {}
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, 2, 2, 1);
    check_attributes(graph, node, {"axis"});
    check_input_dtype(graph, node, 1, {DType::kInt64, DType::kInt32});
  }
  void infer(Graph& graph, const Node& node) const override {
    const auto& data = input_value(graph, node, 0);
    const auto& indices = input_value(graph, node, 1);
    const auto axis = node.attr_int("axis", 0);
    set_output(graph, node, 0, data.dtype, or_fail(graph, node, [&] {
                 return elements_ ? kernels::gather_elements_shape(data.shape, indices.shape, axis)
                                  : kernels::gather_shape(data.shape, indices.shape, axis);
               }));
  }
  void compute(const Node& node, std::span<const kernels::ConstTensorRef> in,
               std::span<const kernels::TensorRef> out) const override {
    if (elements_)
      kernels::gather_elements(in[0], in[1], node.attr_int("axis", 0), out[0]);
    else
      kernels::gather(in[0], in[1], node.attr_int("axis", 0), out[0]);
  }

 private:
  bool elements_;
};

class PadSpec : public OpSpec {
 public:
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, 1, 4, 1);
    check_attributes(graph, node, {"mode", "pads", "value"});
    or_fail(graph, node, [&] {
      return kernels::pad_mode_from_string(node.attr_string("mode", "constant").c_str());
    });
  }
  static std::vector<std::int64_t> full_pads(const Graph& graph, const Node& node) {
    const auto& in = input_value(graph, node, 0);
    const auto pads =
        has_input(node, 1) ? constant_ints(graph, node, 1, "pads") : node.attr_ints("pads");
    const auto axes =
        has_input(node, 3) ? constant_ints(graph, node, 3, "axes") : std::vector<std::int64_t>{};
    return or_fail(graph, node, [&] {
      return kernels::expand_pads(static_cast<std::int64_t>(in.shape.size()), pads, axes);
    });
  }
  void infer(Graph& graph, const Node& node) const override {
    const auto& in = input_value(graph, node, 0);
    const auto pads = full_pads(graph, node);
    set_output(graph, node, 0, in.dtype,
               or_fail(graph, node, [&] { return kernels::pad_shape(in.shape, pads); }));
  }
  std::unique_ptr<Step> create_step(const StepContext& context) const override {
    double value = context.node.attr_float("value", 0.0F);
    if (context.inputs.size() > 2 && context.inputs[2].data) {
      const auto& v = context.inputs[2];
      value = v.dtype == DType::kFloat32
                  ? *v.f32()
                  : static_cast<double>(kernels::read_int64_values(v.cref(), "Pad").at(0));
    }
    return std::make_unique<PadStep>(
        full_pads(context.graph, context.node),
        kernels::pad_mode_from_string(context.node.attr_string("mode", "constant").c_str()), value,
        context);
  }

 private:
  class PadStep : public Step {
   public:
    PadStep(std::vector<std::int64_t> pads, kernels::PadMode mode, double value,
            const StepContext& context)
        : pads_(std::move(pads)),
          mode_(mode),
          value_(value),
          in_(context.inputs[0]),
          out_(context.outputs[0]) {}
    void run(pthreadpool_t) override { kernels::pad(in_.cref(), pads_, mode_, value_, out_.ref()); }

   private:
    std::vector<std::int64_t> pads_;
    kernels::PadMode mode_;
    double value_;
    ValueView in_, out_;
  };
};

}  // namespace

void register_data_ops(Registry& r) {
  add<ConcatSpec>(r, "Concat").set_int8({Int8Lowering::kConcat, QuantizedInputs::kAll, true});
  add<SplitSpec>(r, "Split").set_int8({Int8Lowering::kSplit, QuantizedInputs::kFirst, true});
  add<SliceSpec>(r, "Slice");
  add<TransposeSpec>(r, "Transpose");
  add<GatherSpec>(r, "Gather", false);
  add<GatherSpec>(r, "GatherElements", true);
  add<PadSpec>(r, "Pad");
}

}  // namespace yolo::runtime::ops
