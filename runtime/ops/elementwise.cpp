// SPDX-License-Identifier: Apache-2.0
// Broadcasting binary ops (Add, Sub, Mul, Div, Pow, Min, Max, Mod, comparisons, logic), Where,
// and the unary activations. In NHWC, float binary ops run a strided loop so that they read
// channel slices and write into a concat's buffer; unary activations run on XNNPACK or our SiLU
// and sigmoid kernels with pixel strides.
#include <pthreadpool.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>

#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/unary.h"
#include "runtime/ops/registry.h"
#include "runtime/xnn/activation.h"
#include "runtime/xnn/unary.h"

namespace yolo::runtime::ops {

namespace {

using kernels::BinaryOp;
using kernels::UnaryOp;

// Pixels per task of the threaded loops: large enough to amortise the dispatch.
constexpr std::size_t kPixelsPerTask = 256;
// Below this many elements a loop runs on the calling thread: waking the pool costs more.
constexpr std::size_t kParallelElements = 32768;

bool is_float4d_same_shape(const Graph& graph, const Node& node) {
  const auto& out = graph.value(node.outputs[0]);
  if (out.dtype != DType::kFloat32 || out.shape.size() != 4) return false;
  for (std::size_t i = 0; i < node.inputs.size(); ++i) {
    const auto& v = input_value(graph, node, i);
    if (!v.constant && v.shape != out.shape) return false;
  }
  return true;
}

float apply(BinaryOp op, float a, float b) {
  switch (op) {
    case BinaryOp::kAdd:
      return a + b;
    case BinaryOp::kSub:
      return a - b;
    case BinaryOp::kMul:
      return a * b;
    case BinaryOp::kDiv:
      return a / b;
    case BinaryOp::kPow:
      return std::pow(a, b);
    case BinaryOp::kMin:
      return std::min(a, b);
    default:
      return std::max(a, b);
  }
}

// A float binary op over NHWC pixels: each operand is a strided full tensor, a per-channel
// vector or a scalar (constants are permuted to channel-last at load).
class NhwcBinaryStep : public Step {
 public:
  NhwcBinaryStep(BinaryOp op, const StepContext& context) : op_(op) {
    const auto& out = context.outputs[0];
    pixels_ = static_cast<std::size_t>(out.pixels());
    channels_ = static_cast<std::size_t>(out.channels());
    out_ = {out.f32(), static_cast<std::size_t>(out.pixel_stride)};
    for (int i = 0; i < 2; ++i) operands_[i] = operand(context, context.inputs[i]);
  }

  void run(pthreadpool_t pool) override {
    const std::size_t tasks = (pixels_ + kPixelsPerTask - 1) / kPixelsPerTask;
    pthreadpool_parallelize_1d(
        pixels_ * channels_ < kParallelElements ? nullptr : pool,
        [](void* self, std::size_t task) {
          static_cast<NhwcBinaryStep*>(self)->run_pixels(task * kPixelsPerTask);
        },
        this, tasks, 0);
  }

 private:
  struct Operand {
    enum Kind { kFull, kChannel, kScalar };
    const float* data = nullptr;
    std::size_t stride = 0;
    Kind kind = kFull;
  };
  struct OutOperand {
    float* data = nullptr;
    std::size_t stride = 0;
  };

  Operand operand(const StepContext& context, const ValueView& v) {
    if (!v.constant) return {v.f32(), static_cast<std::size_t>(v.pixel_stride), Operand::kFull};
    // Constants broadcast against [N,C,H,W]: a scalar or one value per channel stay small; any
    // other shape is expanded to the output and stored channel-last.
    const auto& shape = v.constant->shape();
    Shape padded(4 - std::min<std::size_t>(4, shape.size()), 1);
    padded.insert(padded.end(), shape.begin(), shape.end());
    const auto* src = v.constant->data_as<float>();
    if (element_count(padded) == 1) {
      return {stored(std::vector<float>{src[0]}), 0, Operand::kScalar};
    }
    if (padded[0] == 1 && padded[2] == 1 && padded[3] == 1) {
      return {stored(std::vector<float>(src, src + padded[1])), 0, Operand::kChannel};
    }
    const auto& out = context.outputs[0];
    const std::int64_t n = out.shape[0], c = out.shape[1], h = out.shape[2], w = out.shape[3];
    std::vector<float> full(static_cast<std::size_t>(n * c * h * w));
    auto at = [&](std::int64_t dim, std::int64_t i) { return padded[dim] == 1 ? 0 : i; };
    for (std::int64_t in = 0; in < n; ++in)
      for (std::int64_t ih = 0; ih < h; ++ih)
        for (std::int64_t iw = 0; iw < w; ++iw)
          for (std::int64_t ic = 0; ic < c; ++ic) {
            const std::int64_t s =
                ((at(0, in) * padded[1] + at(1, ic)) * padded[2] + at(2, ih)) * padded[3] +
                at(3, iw);
            full[static_cast<std::size_t>(((in * h + ih) * w + iw) * c + ic)] = src[s];
          }
    return {stored(std::move(full)), static_cast<std::size_t>(c), Operand::kFull};
  }

  const float* stored(std::vector<float> values) {
    constants_.push_back(std::move(values));
    return constants_.back().data();
  }

  void run_pixels(std::size_t first) {
    const std::size_t last = std::min(pixels_, first + kPixelsPerTask);
    const auto& a = operands_[0];
    const auto& b = operands_[1];
    for (std::size_t p = first; p < last; ++p) {
      float* o = out_.data + p * out_.stride;
      const float* pa = a.data + (a.kind == Operand::kFull ? p * a.stride : 0);
      const float* pb = b.data + (b.kind == Operand::kFull ? p * b.stride : 0);
      const std::size_t sa = a.kind == Operand::kScalar ? 0 : 1;
      const std::size_t sb = b.kind == Operand::kScalar ? 0 : 1;
      switch (op_) {
        case BinaryOp::kAdd:
          for (std::size_t c = 0; c < channels_; ++c) o[c] = pa[c * sa] + pb[c * sb];
          break;
        case BinaryOp::kSub:
          for (std::size_t c = 0; c < channels_; ++c) o[c] = pa[c * sa] - pb[c * sb];
          break;
        case BinaryOp::kMul:
          for (std::size_t c = 0; c < channels_; ++c) o[c] = pa[c * sa] * pb[c * sb];
          break;
        default:
          for (std::size_t c = 0; c < channels_; ++c) o[c] = apply(op_, pa[c * sa], pb[c * sb]);
          break;
      }
    }
  }

  BinaryOp op_;
  std::size_t pixels_ = 0;
  std::size_t channels_ = 0;
  OutOperand out_;
  Operand operands_[2];
  std::vector<std::vector<float>> constants_;
};

class BinarySpec : public OpSpec {
 public:
  explicit BinarySpec(BinaryOp op)
      : OpSpec({.reads_strided = nhwc_capable(op), .writes_strided = nhwc_capable(op)}), op_(op) {}

  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, 2, 2, 1);
    if (node.op_type == "Mod")
      check_attributes(graph, node, {"fmod"});
    else
      check_attributes(graph, node, {});
  }
  void infer(Graph& graph, const Node& node) const override {
    const auto& a = input_value(graph, node, 0);
    const auto& b = input_value(graph, node, 1);
    try {
      const DType type = kernels::binary_result_dtype(op(node), a.dtype, b.dtype);
      set_output(graph, node, 0, type,
                 kernels::broadcast_shape(a.shape, b.shape, node.op_type.c_str()));
    } catch (const std::invalid_argument& e) {
      graph.fail(node, e.what());
    }
  }
  void compute(const Node& node, std::span<const kernels::ConstTensorRef> in,
               std::span<const kernels::TensorRef> out) const override {
    kernels::binary(op(node), in[0], in[1], out[0]);
  }
  LayoutRule layout_rule(const Graph& graph, const Node& node) const override {
    return nhwc_capable(op_) && is_float4d_same_shape(graph, node) ? LayoutRule::kElementwise
                                                                   : LayoutRule::kNchw;
  }
  std::unique_ptr<Step> create_step(const StepContext& context) const override {
    if (context.outputs[0].layout == Layout::kNhwc) {
      return std::make_unique<NhwcBinaryStep>(op_, context);
    }
    return make_compute_step(*this, context);
  }
  std::function<float(float, float)> binary_function() const override {
    if (!nhwc_capable(op_)) return {};
    return [op = op_](float a, float b) { return apply(op, a, b); };
  }

 private:
  // The ops with an NHWC step (NhwcBinaryStep).
  static bool nhwc_capable(BinaryOp op) {
    return op == BinaryOp::kAdd || op == BinaryOp::kSub || op == BinaryOp::kMul ||
           op == BinaryOp::kDiv || op == BinaryOp::kMin || op == BinaryOp::kMax ||
           op == BinaryOp::kPow;
  }
  BinaryOp op(const Node& node) const {
    if (op_ == BinaryOp::kMod && node.attr_int("fmod", 0) != 0) return BinaryOp::kFmod;
    return op_;
  }
  BinaryOp op_;
};

// Min, Max, Sum with any number of inputs; the two-input case runs like the binary ops.
class VariadicSpec : public BinarySpec {
 public:
  explicit VariadicSpec(BinaryOp op) : BinarySpec(op), op_(op) {}
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, 1, 64, 1);
    check_attributes(graph, node, {});
  }
  void infer(Graph& graph, const Node& node) const override {
    std::vector<Shape> shapes;
    DType type = input_value(graph, node, 0).dtype;
    for (std::size_t i = 0; i < node.inputs.size(); ++i) {
      const auto& v = input_value(graph, node, i);
      if (v.dtype != type) graph.fail(node, "inputs must share one element type");
      shapes.push_back(v.shape);
    }
    try {
      set_output(graph, node, 0, type, kernels::broadcast_shapes(shapes, node.op_type.c_str()));
    } catch (const std::invalid_argument& e) {
      graph.fail(node, e.what());
    }
  }
  void compute(const Node&, std::span<const kernels::ConstTensorRef> in,
               std::span<const kernels::TensorRef> out) const override {
    kernels::variadic(op_, in, out[0]);
  }
  LayoutRule layout_rule(const Graph& graph, const Node& node) const override {
    return node.inputs.size() == 2 ? BinarySpec::layout_rule(graph, node) : LayoutRule::kNchw;
  }

 private:
  BinaryOp op_;
};

class WhereSpec : public OpSpec {
 public:
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, 3, 3, 1);
    check_attributes(graph, node, {});
    check_input_dtype(graph, node, 0, {DType::kBool});
  }
  void infer(Graph& graph, const Node& node) const override {
    std::vector<Shape> shapes;
    for (std::size_t i = 0; i < 3; ++i) shapes.push_back(input_value(graph, node, i).shape);
    if (input_value(graph, node, 1).dtype != input_value(graph, node, 2).dtype) {
      graph.fail(node, "x and y must share one element type");
    }
    try {
      set_output(graph, node, 0, input_value(graph, node, 1).dtype,
                 kernels::broadcast_shapes(shapes, "Where"));
    } catch (const std::invalid_argument& e) {
      graph.fail(node, e.what());
    }
  }
  void compute(const Node&, std::span<const kernels::ConstTensorRef> in,
               std::span<const kernels::TensorRef> out) const override {
    kernels::where(in[0], in[1], in[2], out[0]);
  }
};

// How a float unary op runs on strided NHWC pixels, if it can.
enum class StridedKind { kNone, kSigmoid, kSilu, kClamp, kLeakyRelu, kHardSwish, kSqrt };

class StridedUnaryStep : public Step {
 public:
  StridedUnaryStep(StridedKind kind, float a, float b, const StepContext& context) : kind_(kind) {
    const auto& in = context.inputs[0];
    const auto& out = context.outputs[0];
    if (out.layout == Layout::kNhwc) {
      pixels_ = static_cast<std::size_t>(out.pixels());
      channels_ = static_cast<std::size_t>(out.channels());
    } else {
      // A dense tensor runs as rows of 256 values where it divides, so threads share the work.
      const auto count = static_cast<std::size_t>(element_count(out.shape));
      channels_ = count % 256 == 0 && count > 0 ? 256 : std::max<std::size_t>(count, 1);
      pixels_ = count / channels_;
    }
    in_stride_ = static_cast<std::size_t>(in.layout == Layout::kNhwc ? in.pixel_stride : channels_);
    out_stride_ =
        static_cast<std::size_t>(out.layout == Layout::kNhwc ? out.pixel_stride : channels_);
    in_ = in.f32();
    out_ = out.f32();
    const std::string& name = context.node.name;
    switch (kind) {
      case StridedKind::kClamp:
        xnn_.emplace(xnn::UnaryF32::clamp(channels_, in_stride_, out_stride_, a, b, name));
        break;
      case StridedKind::kLeakyRelu:
        xnn_.emplace(xnn::UnaryF32::leaky_relu(channels_, in_stride_, out_stride_, a, name));
        break;
      case StridedKind::kHardSwish:
        xnn_.emplace(xnn::UnaryF32::hardswish(channels_, in_stride_, out_stride_, name));
        break;
      case StridedKind::kSqrt:
        xnn_.emplace(xnn::UnaryF32::square_root(channels_, in_stride_, out_stride_, name));
        break;
      default:
        break;
    }
  }
  void setup(pthreadpool_t pool) override {
    if (xnn_) xnn_->setup(pixels_, in_, out_, pool);
  }
  void run(pthreadpool_t pool) override {
    if (xnn_) {
      xnn_->run(pool);
    } else if (kind_ == StridedKind::kSilu) {
      xnn::silu_f32(pixels_, channels_, in_, in_stride_, out_, out_stride_, pool);
    } else {
      xnn::sigmoid_f32(pixels_, channels_, in_, in_stride_, out_, out_stride_, pool);
    }
  }

 private:
  StridedKind kind_;
  std::size_t pixels_ = 0, channels_ = 0, in_stride_ = 0, out_stride_ = 0;
  const float* in_ = nullptr;
  float* out_ = nullptr;
  std::optional<xnn::UnaryF32> xnn_;
};

class UnarySpec : public OpSpec {
 public:
  UnarySpec(UnaryOp op, StridedKind strided)
      : OpSpec({.reads_strided = strided != StridedKind::kNone,
                .writes_strided = strided != StridedKind::kNone}),
        op_(op),
        strided_(strided) {}
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, 1, 1, 1);
    check_attributes(graph, node, {});
    try {
      kernels::check_unary_dtype(op_, input_value(graph, node, 0).dtype);
    } catch (const std::invalid_argument& e) {
      graph.fail(node, e.what());
    }
  }
  void infer(Graph& graph, const Node& node) const override {
    const auto& in = input_value(graph, node, 0);
    set_output(graph, node, 0, in.dtype, in.shape);
  }
  void compute(const Node&, std::span<const kernels::ConstTensorRef> in,
               std::span<const kernels::TensorRef> out) const override {
    kernels::unary(op_, in[0], out[0]);
  }
  LayoutRule layout_rule(const Graph& graph, const Node& node) const override {
    return input_value(graph, node, 0).dtype == DType::kFloat32 ? LayoutRule::kFollow
                                                                : LayoutRule::kNchw;
  }
  std::unique_ptr<Step> create_step(const StepContext& context) const override {
    if (strided_ == StridedKind::kNone || context.inputs[0].dtype != DType::kFloat32) {
      return make_compute_step(*this, context);
    }
    return std::make_unique<StridedUnaryStep>(strided_, 0.0F, 0.0F, context);
  }
  std::function<float(float)> unary_function(const Graph&, const Node&) const override {
    return kernels::unary_function(op_);
  }

 protected:
  UnaryOp op_;
  StridedKind strided_;
};

class ReluSpec : public UnarySpec {
 public:
  ReluSpec() : UnarySpec(UnaryOp::kRelu, StridedKind::kClamp) {}
  std::unique_ptr<Step> create_step(const StepContext& context) const override {
    if (context.inputs[0].dtype != DType::kFloat32) return make_compute_step(*this, context);
    return std::make_unique<StridedUnaryStep>(StridedKind::kClamp, 0.0F,
                                              std::numeric_limits<float>::infinity(), context);
  }
};

class LeakyReluSpec : public UnarySpec {
 public:
  LeakyReluSpec() : UnarySpec(UnaryOp::kRelu, StridedKind::kLeakyRelu) {}
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, 1, 1, 1);
    check_attributes(graph, node, {"alpha"});
    check_input_dtype(graph, node, 0, {DType::kFloat32});
  }
  void compute(const Node& node, std::span<const kernels::ConstTensorRef> in,
               std::span<const kernels::TensorRef> out) const override {
    kernels::leaky_relu(in[0], node.attr_float("alpha", 0.01F), out[0]);
  }
  std::unique_ptr<Step> create_step(const StepContext& context) const override {
    return std::make_unique<StridedUnaryStep>(
        StridedKind::kLeakyRelu, context.node.attr_float("alpha", 0.01F), 0.0F, context);
  }
  std::function<float(float)> unary_function(const Graph&, const Node& node) const override {
    return [alpha = node.attr_float("alpha", 0.01F)](float x) {
      return kernels::leaky_relu_of(x, alpha);
    };
  }
};

class HardSigmoidSpec : public UnarySpec {
 public:
  HardSigmoidSpec() : UnarySpec(UnaryOp::kSigmoid, StridedKind::kNone) {}
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, 1, 1, 1);
    check_attributes(graph, node, {"alpha", "beta"});
    check_input_dtype(graph, node, 0, {DType::kFloat32});
  }
  void compute(const Node& node, std::span<const kernels::ConstTensorRef> in,
               std::span<const kernels::TensorRef> out) const override {
    kernels::hard_sigmoid(in[0], node.attr_float("alpha", 0.2F), node.attr_float("beta", 0.5F),
                          out[0]);
  }
  std::function<float(float)> unary_function(const Graph&, const Node& node) const override {
    return [alpha = node.attr_float("alpha", 0.2F), beta = node.attr_float("beta", 0.5F)](float x) {
      return kernels::hard_sigmoid_of(x, alpha, beta);
    };
  }
};

// Clip: bounds from attributes (opset < 11) or optional constant inputs.
class ClipSpec : public UnarySpec {
 public:
  ClipSpec() : UnarySpec(UnaryOp::kRelu, StridedKind::kClamp) {}
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, 1, 3, 1);
    check_attributes(graph, node, {"min", "max"});
    check_input_dtype(graph, node, 0, {DType::kFloat32, DType::kInt64, DType::kInt32});
    for (std::size_t i = 1; i < 3; ++i) {
      if (has_input(node, i) && !input_value(graph, node, i).constant) {
        graph.fail(node, "min and max must be constants");
      }
    }
  }
  static std::pair<std::optional<double>, std::optional<double>> bounds(
      const Node& node, std::span<const kernels::ConstTensorRef> in) {
    std::optional<double> lo, hi;
    if (const auto* a = node.find_attribute("min")) lo = a->f();
    if (const auto* a = node.find_attribute("max")) hi = a->f();
    auto read = [](const kernels::ConstTensorRef& t) -> double {
      if (t.dtype == DType::kFloat32) return *t.as<float>();
      return static_cast<double>(kernels::read_int64_values(t, "Clip").at(0));
    };
    if (in.size() > 1 && in[1].data) lo = read(in[1]);
    if (in.size() > 2 && in[2].data) hi = read(in[2]);
    return {lo, hi};
  }
  void compute(const Node& node, std::span<const kernels::ConstTensorRef> in,
               std::span<const kernels::TensorRef> out) const override {
    const auto [lo, hi] = bounds(node, in);
    kernels::clip(in[0], lo, hi, out[0]);
  }
  std::unique_ptr<Step> create_step(const StepContext& context) const override {
    if (context.inputs[0].dtype != DType::kFloat32) return make_compute_step(*this, context);
    std::vector<kernels::ConstTensorRef> in;
    for (const auto& v : context.inputs) in.push_back(v.cref());
    const auto [lo, hi] = bounds(context.node, in);
    return std::make_unique<StridedUnaryStep>(StridedKind::kClamp,
                                              static_cast<float>(lo.value_or(-INFINITY)),
                                              static_cast<float>(hi.value_or(INFINITY)), context);
  }
  std::function<float(float)> unary_function(const Graph& graph, const Node& node) const override {
    std::vector<kernels::ConstTensorRef> in(node.inputs.size());
    for (std::size_t i = 1; i < in.size(); ++i) {
      if (has_input(node, i)) in[i] = *input_value(graph, node, i).constant;
    }
    const auto [lo, hi] = bounds(node, in);
    return [lo = static_cast<float>(lo.value_or(-INFINITY)),
            hi = static_cast<float>(hi.value_or(INFINITY))](float x) {
      return std::min(std::max(x, lo), hi);
    };
  }
};

class CastSpec : public OpSpec {
 public:
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, 1, 1, 1);
    check_attributes(graph, node, {"to", "saturate"});
    dtype_from_onnx(static_cast<int>(node.attr_int("to", 0)),
                    graph.where + ": " + graph.describe(node) + " attribute 'to'");
  }
  void infer(Graph& graph, const Node& node) const override {
    const auto& in = input_value(graph, node, 0);
    set_output(graph, node, 0, dtype_from_onnx(static_cast<int>(node.attr_int("to", 0)), ""),
               in.shape);
  }
  void compute(const Node&, std::span<const kernels::ConstTensorRef> in,
               std::span<const kernels::TensorRef> out) const override {
    kernels::cast(in[0], out[0]);
  }
};

// The fused x * sigmoid(x) (internal op yolo.SiLU), made by the fusion pass.
class SiluSpec : public UnarySpec {
 public:
  SiluSpec() : UnarySpec(UnaryOp::kSigmoid, StridedKind::kSilu) {}
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, 1, 1, 1);
    check_input_dtype(graph, node, 0, {DType::kFloat32});
  }
  void compute(const Node&, std::span<const kernels::ConstTensorRef> in,
               std::span<const kernels::TensorRef> out) const override {
    xnn::silu_f32(1, static_cast<std::size_t>(in[0].size()), in[0].as<float>(),
                  static_cast<std::size_t>(in[0].size()), out[0].as<float>(),
                  static_cast<std::size_t>(out[0].size()), nullptr);
  }
  // XNNPACK's SiLU has no scalar form here; the int8 lowering sees the Sigmoid and Mul it fuses.
  std::function<float(float)> unary_function(const Graph&, const Node&) const override {
    return {};
  }
};

}  // namespace

void register_elementwise_ops(Registry& r) {
  // The quantizer quantizes the inputs of a SiLU's Mul and of the residual Add.
  constexpr Int8Support all_quantized{Int8Lowering::kElementwise, QuantizedInputs::kAll};
  add<BinarySpec>(r, "Add", BinaryOp::kAdd).set_int8(all_quantized);
  add<BinarySpec>(r, "Sub", BinaryOp::kSub).set_int8(kInt8Table);
  add<BinarySpec>(r, "Mul", BinaryOp::kMul).set_int8(all_quantized);
  add<BinarySpec>(r, "Div", BinaryOp::kDiv).set_int8(kInt8Table);
  add<BinarySpec>(r, "Pow", BinaryOp::kPow);
  add<BinarySpec>(r, "Mod", BinaryOp::kMod);
  add<BinarySpec>(r, "Equal", BinaryOp::kEqual);
  add<BinarySpec>(r, "Less", BinaryOp::kLess);
  add<BinarySpec>(r, "LessOrEqual", BinaryOp::kLessOrEqual);
  add<BinarySpec>(r, "Greater", BinaryOp::kGreater);
  add<BinarySpec>(r, "GreaterOrEqual", BinaryOp::kGreaterOrEqual);
  add<BinarySpec>(r, "And", BinaryOp::kAnd);
  add<BinarySpec>(r, "Or", BinaryOp::kOr);
  add<BinarySpec>(r, "Xor", BinaryOp::kXor);
  add<VariadicSpec>(r, "Min", BinaryOp::kMin).set_int8(kInt8Table);
  add<VariadicSpec>(r, "Max", BinaryOp::kMax).set_int8(kInt8Table);
  add<VariadicSpec>(r, "Sum", BinaryOp::kAdd);
  add<WhereSpec>(r, "Where");
  add<UnarySpec>(r, "Sigmoid", UnaryOp::kSigmoid, StridedKind::kSigmoid)
      .set_int8({Int8Lowering::kElementwise, QuantizedInputs::kFirst});
  add<ReluSpec>(r, "Relu").set_int8(kInt8Table);
  add<LeakyReluSpec>(r, "LeakyRelu").set_int8(kInt8Table);
  add<HardSigmoidSpec>(r, "HardSigmoid").set_int8(kInt8Table);
  add<UnarySpec>(r, "HardSwish", UnaryOp::kHardSwish, StridedKind::kHardSwish).set_int8(kInt8Table);
  add<ClipSpec>(r, "Clip").set_int8(kInt8Table);
  add<UnarySpec>(r, "Exp", UnaryOp::kExp, StridedKind::kNone).set_int8(kInt8Table);
  add<UnarySpec>(r, "Log", UnaryOp::kLog, StridedKind::kNone);
  add<UnarySpec>(r, "Sqrt", UnaryOp::kSqrt, StridedKind::kSqrt);
  add<UnarySpec>(r, "Tanh", UnaryOp::kTanh, StridedKind::kNone).set_int8(kInt8Table);
  add<UnarySpec>(r, "Erf", UnaryOp::kErf, StridedKind::kNone);
  add<UnarySpec>(r, "Floor", UnaryOp::kFloor, StridedKind::kNone);
  add<UnarySpec>(r, "Ceil", UnaryOp::kCeil, StridedKind::kNone);
  add<UnarySpec>(r, "Reciprocal", UnaryOp::kReciprocal, StridedKind::kNone);
  add<UnarySpec>(r, "Neg", UnaryOp::kNeg, StridedKind::kNone).set_int8(kInt8Table);
  add<UnarySpec>(r, "Abs", UnaryOp::kAbs, StridedKind::kNone).set_int8(kInt8Table);
  add<UnarySpec>(r, "Sign", UnaryOp::kSign, StridedKind::kNone);
  add<UnarySpec>(r, "Not", UnaryOp::kNot, StridedKind::kNone);
  add<CastSpec>(r, "Cast");
  r[{"yolo", "SiLU"}] = std::make_unique<SiluSpec>();
}

}  // namespace yolo::runtime::ops
