// SPDX-License-Identifier: Apache-2.0
// The engine's int8 ops (domain "yolo"), made by the QDQ lowering pass
// (runtime/int8/qdq_lowering.h) from DequantizeLinear -> op -> QuantizeLinear patterns around the
// ONNX ops listed in runtime/int8/int8_operators.h. Activations are signed int8, NHWC, with one
// (scale, zero point) per tensor held in the node's attributes; every op reads and writes channel
// slices so concat and split stay free.
//   QConv(x, w int8 OIHW, w_scale [O], bias int32 [O]?)  conv attributes, x_/y_ params, and an
//       optional table applied in place to its output ("act": the chain's name, "act_table")
//   QLut(x)        "table": 256 bytes indexed by the input's raw byte (an element-wise chain, made
//                  by runtime/int8/qdq_chain.h, or a requantization); "function" names it
//   QBinary(a, b)  op Add|Mul|Sub, a_/b_/y_ params, equal shapes
//   QMaxPool(x)    pooling attributes; the quantization is unchanged
//   QUpsample(x)   integer nearest upsample, factor_h / factor_w
//   Quantize(x)    float -> int8 (an FP32 island's exit), Dequantize(x) int8 -> float (its entry)
#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include "runtime/kernels/conv_qc8_vnni.h"
#include "runtime/ops/registry.h"
#include "runtime/xnn/int8.h"
#include "runtime/xnn/unary.h"

namespace yolo::runtime::ops {

namespace {

std::uint32_t u32(std::int64_t v) {
  return static_cast<std::uint32_t>(v);
}

xnn::QuantParams params(const Node& node, const std::string& prefix) {
  return {node.attr_float(prefix + "scale", 1.0F),
          static_cast<std::int8_t>(node.attr_int(prefix + "zero_point", 0))};
}

// The 256-byte table held in string attribute `key`.
std::array<std::int8_t, 256> table_of(const Graph& graph, const Node& node,
                                      const std::string& key) {
  const auto bytes = node.attr_string(key, "");
  if (bytes.size() != 256) graph.fail(node, "int8 table '" + key + "' is not 256 bytes");
  std::array<std::int8_t, 256> table{};
  std::memcpy(table.data(), bytes.data(), table.size());
  return table;
}

std::size_t stride_of(const ValueView& v) {
  return static_cast<std::size_t>(v.layout == Layout::kNhwc ? v.pixel_stride : v.shape.back());
}
std::size_t rows_of(const ValueView& v) {
  return static_cast<std::size_t>(
      v.layout == Layout::kNhwc ? v.pixels() : element_count(v.shape) / v.shape.back());
}
std::size_t channels_of(const ValueView& v) {
  return static_cast<std::size_t>(v.layout == Layout::kNhwc ? v.channels() : v.shape.back());
}

// Shared by the int8 specs: the output keeps the first input's shape as int8, unless overridden.
class Int8Spec : public OpSpec {
 public:
  explicit Int8Spec(LayoutRule layout = LayoutRule::kNhwc) : OpSpec({layout, true, true}) {}
  void infer(Graph& graph, const Node& node) const override {
    set_output(graph, node, 0, DType::kInt8, input_value(graph, node, 0).shape);
  }
  bool foldable() const override { return false; }
};

// Group-1 convs run on our AVX-512 VNNI kernel where the CPU has it (with the activation table
// fused into its output), everything else on XNNPACK's QC8 operator followed by the table.
class QConvStep : public Step {
 public:
  QConvStep(const StepContext& c) : in_(c.inputs[0]), out_(c.outputs[0]) {
    const Node& node = c.node;
    const auto& w = *c.inputs[1].constant;
    const auto& ws = *c.inputs[2].constant;
    xnn::Conv2dQC8Params p;
    p.geometry.window = resolve_window(c.graph, node, in_.shape, w.shape()[2], w.shape()[3]).window;
    p.geometry.groups = u32(node.attr_int("group", 1));
    p.geometry.input_channels = static_cast<std::size_t>(in_.shape[1]);
    p.geometry.output_channels = static_cast<std::size_t>(out_.shape[1]);
    p.geometry.input_pixel_stride = static_cast<std::size_t>(in_.pixel_stride);
    p.geometry.output_pixel_stride = static_cast<std::size_t>(out_.pixel_stride);
    p.input = params(node, "x_");
    p.output = params(node, "y_");
    std::span<const std::int32_t> bias;
    if (c.inputs.size() > 3 && c.inputs[3].constant) {
      bias = {c.inputs[3].constant->data_as<std::int32_t>(),
              static_cast<std::size_t>(c.inputs[3].constant->size())};
    }
    const std::span<const std::int8_t> weights(w.data_as<std::int8_t>(), w.bytes());
    const std::span<const float> scales(ws.data_as<float>(), static_cast<std::size_t>(ws.size()));
    std::optional<xnn::LookupTableS8> lut;
    if (node.has_attribute("act")) lut.emplace(table_of(c.graph, node, "act_table"));

    if (p.geometry.groups == 1 && kernels::ConvQC8Vnni::available()) {
      const xnn::Conv2dParams& g = p.geometry;
      std::optional<std::array<std::int8_t, 256>> table;
      if (lut) table = lut->by_byte();
      vnni_.emplace(kernels::ConvQC8Geometry{g.window, g.input_channels, g.output_channels,
                                             g.input_pixel_stride, g.output_pixel_stride},
                    kernels::ConvQC8Quant{p.input.scale, p.input.zero_point, p.output.scale,
                                          p.output.zero_point, p.output_min, p.output_max},
                    weights, scales, bias, table);
      return;
    }
    conv_.emplace(p, weights, scales, bias, node.name);
    lut_ = std::move(lut);
  }
  void setup(pthreadpool_t pool) override {
    if (conv_) {
      conv_->setup(static_cast<std::size_t>(in_.physical[0]),
                   static_cast<std::size_t>(in_.physical[1]),
                   static_cast<std::size_t>(in_.physical[2]), static_cast<const int8_t*>(in_.data),
                   static_cast<int8_t*>(out_.data), pool);
    }
  }
  void run(pthreadpool_t pool) override {
    if (vnni_) {
      vnni_->run(static_cast<std::size_t>(in_.physical[0]),
                 static_cast<std::size_t>(in_.physical[1]),
                 static_cast<std::size_t>(in_.physical[2]), static_cast<const int8_t*>(in_.data),
                 static_cast<int8_t*>(out_.data), pool);
      return;
    }
    conv_->run(pool);
    if (lut_) {
      auto* y = static_cast<int8_t*>(out_.data);
      lut_->run(rows_of(out_), channels_of(out_), y, stride_of(out_), y, stride_of(out_), pool);
    }
  }

 private:
  ValueView in_, out_;
  std::optional<kernels::ConvQC8Vnni> vnni_;
  std::optional<xnn::Conv2dQC8> conv_;
  std::optional<xnn::LookupTableS8> lut_;
};

class QConvSpec : public Int8Spec {
 public:
  void infer(Graph& graph, const Node& node) const override {
    set_output(graph, node, 0, DType::kInt8,
               conv_output_shape(graph, node, input_value(graph, node, 0).shape,
                                 input_value(graph, node, 1).shape));
  }
  std::unique_ptr<Step> create_step(const StepContext& context) const override {
    return std::make_unique<QConvStep>(context);
  }
};

class QLutStep : public Step {
 public:
  QLutStep(const StepContext& c)
      : in_(c.inputs[0]), out_(c.outputs[0]), lut_(table_of(c.graph, c.node, "table")) {}
  void run(pthreadpool_t pool) override {
    lut_.run(rows_of(in_), channels_of(in_), static_cast<const int8_t*>(in_.data), stride_of(in_),
             static_cast<int8_t*>(out_.data), stride_of(out_), pool);
  }

 private:
  ValueView in_, out_;
  xnn::LookupTableS8 lut_;
};

class QLutSpec : public Int8Spec {
 public:
  QLutSpec() : Int8Spec(LayoutRule::kFollow) {}
  std::unique_ptr<Step> create_step(const StepContext& context) const override {
    return std::make_unique<QLutStep>(context);
  }
};

// Copies a strided int8 view into a dense buffer (XNNPACK's binary ops read dense tensors).
void gather_dense(const ValueView& v, std::int8_t* dst) {
  const std::size_t rows = rows_of(v), channels = channels_of(v), stride = stride_of(v);
  const auto* src = static_cast<const std::int8_t*>(v.data);
  for (std::size_t r = 0; r < rows; ++r)
    std::memcpy(dst + r * channels, src + r * stride, channels);
}
bool dense(const ValueView& v) {
  return stride_of(v) == channels_of(v);
}

class QBinaryStep : public Step {
 public:
  QBinaryStep(const StepContext& c)
      : a_(c.inputs[0]),
        b_(c.inputs[1]),
        out_(c.outputs[0]),
        op_(binary_op(c), params(c.node, "a_"), params(c.node, "b_"), params(c.node, "y_"),
            c.node.name) {
    const auto n = static_cast<std::size_t>(element_count(out_.shape));
    if (!dense(a_)) a_scratch_.resize(n);
    if (!dense(b_)) b_scratch_.resize(n);
    if (!dense(out_)) out_scratch_.resize(n);
  }
  void setup(pthreadpool_t pool) override {
    const std::vector<std::size_t> shape{rows_of(out_) * channels_of(out_)};
    op_.setup(shape, shape,
              a_scratch_.empty() ? static_cast<const int8_t*>(a_.data) : a_scratch_.data(),
              b_scratch_.empty() ? static_cast<const int8_t*>(b_.data) : b_scratch_.data(),
              out_scratch_.empty() ? static_cast<int8_t*>(out_.data) : out_scratch_.data(), pool);
  }
  void run(pthreadpool_t pool) override {
    if (!a_scratch_.empty()) gather_dense(a_, a_scratch_.data());
    if (!b_scratch_.empty()) gather_dense(b_, b_scratch_.data());
    op_.run(pool);
    if (!out_scratch_.empty()) {
      const std::size_t rows = rows_of(out_), channels = channels_of(out_),
                        stride = stride_of(out_);
      auto* dst = static_cast<std::int8_t*>(out_.data);
      for (std::size_t r = 0; r < rows; ++r) {
        std::memcpy(dst + r * stride, out_scratch_.data() + r * channels, channels);
      }
    }
  }

 private:
  static xnn::BinaryOp binary_op(const StepContext& c) {
    const auto op = c.node.attr_string("op", "");
    if (op == "Add") return xnn::BinaryOp::kAdd;
    if (op == "Sub") return xnn::BinaryOp::kSubtract;
    if (op == "Mul") return xnn::BinaryOp::kMultiply;
    c.graph.fail(c.node, "unknown int8 binary op '" + op + "'");
  }
  ValueView a_, b_, out_;
  xnn::BinaryQS8 op_;
  std::vector<std::int8_t> a_scratch_, b_scratch_, out_scratch_;
};

class QBinarySpec : public Int8Spec {
 public:
  QBinarySpec() : Int8Spec(LayoutRule::kElementwise) {}
  std::unique_ptr<Step> create_step(const StepContext& context) const override {
    return std::make_unique<QBinaryStep>(context);
  }
};

class QMaxPoolStep : public Step {
 public:
  QMaxPoolStep(const StepContext& c) : in_(c.inputs[0]), out_(c.outputs[0]) {
    const Node& node = c.node;
    xnn::Pool2dParams p;
    p.window = resolve_window(c.graph, node, in_.shape, 1, 1).window;
    p.channels = static_cast<std::size_t>(in_.shape[1]);
    p.input_pixel_stride = static_cast<std::size_t>(in_.pixel_stride);
    p.output_pixel_stride = static_cast<std::size_t>(out_.pixel_stride);
    pool_.emplace(p, node.name);
  }
  void setup(pthreadpool_t pool) override {
    pool_->setup(static_cast<std::size_t>(in_.physical[0]),
                 static_cast<std::size_t>(in_.physical[1]),
                 static_cast<std::size_t>(in_.physical[2]), static_cast<const int8_t*>(in_.data),
                 static_cast<int8_t*>(out_.data), pool);
  }
  void run(pthreadpool_t pool) override { pool_->run(pool); }

 private:
  ValueView in_, out_;
  std::optional<xnn::MaxPool2dS8> pool_;
};

class QMaxPoolSpec : public Int8Spec {
 public:
  std::unique_ptr<Step> create_step(const StepContext& context) const override {
    return std::make_unique<QMaxPoolStep>(context);
  }
};

class QUpsampleStep : public Step {
 public:
  QUpsampleStep(const StepContext& c)
      : in_(c.inputs[0]),
        out_(c.outputs[0]),
        fh_(c.node.attr_int("factor_h", 1)),
        fw_(c.node.attr_int("factor_w", 1)) {}
  void run(pthreadpool_t) override {
    const std::int64_t n = in_.physical[0], h = in_.physical[1], w = in_.physical[2];
    const std::size_t channels = channels_of(in_);
    const auto* src = static_cast<const std::int8_t*>(in_.data);
    auto* dst = static_cast<std::int8_t*>(out_.data);
    const std::int64_t ow = w * fw_;
    for (std::int64_t b = 0; b < n; ++b) {
      for (std::int64_t y = 0; y < h * fh_; ++y) {
        const std::int8_t* row = src + ((b * h + y / fh_) * w) * in_.pixel_stride;
        std::int8_t* out_row = dst + ((b * h * fh_ + y) * ow) * out_.pixel_stride;
        for (std::int64_t x = 0; x < ow; ++x) {
          std::memcpy(out_row + x * out_.pixel_stride, row + (x / fw_) * in_.pixel_stride,
                      channels);
        }
      }
    }
  }

 private:
  ValueView in_, out_;
  std::int64_t fh_, fw_;
};

class QUpsampleSpec : public Int8Spec {
 public:
  void infer(Graph& graph, const Node& node) const override {
    auto shape = input_value(graph, node, 0).shape;
    shape[2] *= node.attr_int("factor_h", 1);
    shape[3] *= node.attr_int("factor_w", 1);
    set_output(graph, node, 0, DType::kInt8, shape);
  }
  std::unique_ptr<Step> create_step(const StepContext& context) const override {
    return std::make_unique<QUpsampleStep>(context);
  }
};

template <typename Convert, typename In, typename Out>
class ConvertStep : public Step {
 public:
  ConvertStep(const StepContext& c)
      : in_(c.inputs[0]),
        out_(c.outputs[0]),
        op_(channels_of(in_), stride_of(in_), stride_of(out_), params(c.node, ""), c.node.name) {}
  void setup(pthreadpool_t pool) override {
    op_.setup(rows_of(in_), static_cast<const In*>(in_.data), static_cast<Out*>(out_.data), pool);
  }
  void run(pthreadpool_t pool) override { op_.run(pool); }

 private:
  ValueView in_, out_;
  Convert op_;
};

// Quantize is NHWC for 4-D values so no int8 tensor ever needs a layout conversion.
class QuantizeSpec : public Int8Spec {
 public:
  LayoutRule layout_rule(const Graph& graph, const Node& node) const override {
    return input_value(graph, node, 0).shape.size() == 4 ? LayoutRule::kNhwc : LayoutRule::kFollow;
  }
  std::unique_ptr<Step> create_step(const StepContext& context) const override {
    return std::make_unique<ConvertStep<xnn::ConvertF32ToQS8, float, std::int8_t>>(context);
  }
};

class DequantizeSpec : public Int8Spec {
 public:
  DequantizeSpec() : Int8Spec(LayoutRule::kFollow) {}
  void infer(Graph& graph, const Node& node) const override {
    set_output(graph, node, 0, DType::kFloat32, input_value(graph, node, 0).shape);
  }
  std::unique_ptr<Step> create_step(const StepContext& context) const override {
    return std::make_unique<ConvertStep<xnn::ConvertQS8ToF32, std::int8_t, float>>(context);
  }
};

}  // namespace

void register_int8_ops(Registry& r) {
  r[{"yolo", "QConv"}] = std::make_unique<QConvSpec>();
  r[{"yolo", "QLut"}] = std::make_unique<QLutSpec>();
  r[{"yolo", "QBinary"}] = std::make_unique<QBinarySpec>();
  r[{"yolo", "QMaxPool"}] = std::make_unique<QMaxPoolSpec>();
  r[{"yolo", "QUpsample"}] = std::make_unique<QUpsampleSpec>();
  r[{"yolo", "Quantize"}] = std::make_unique<QuantizeSpec>();
  r[{"yolo", "Dequantize"}] = std::make_unique<DequantizeSpec>();
}

}  // namespace yolo::runtime::ops
