// SPDX-License-Identifier: Apache-2.0
// Conv (with a fused SiLU or clamp), ConvTranspose, MaxPool, AveragePool, GlobalAveragePool: all
// on XNNPACK in NHWC, reading and writing with pixel strides so Concat and Split cost nothing.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

#include "runtime/ops/registry.h"
#include "runtime/xnn/activation.h"
#include "runtime/xnn/convolution.h"
#include "runtime/xnn/pooling.h"

namespace yolo::runtime::ops {

namespace {

std::int64_t out_size(std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t d,
                      std::int64_t pads, bool ceil_mode) {
  const std::int64_t span = in + pads - d * (k - 1) - 1;
  if (span < 0) return -1;
  return (ceil_mode ? (span + s - 1) / s : span / s) + 1;
}

std::uint32_t u32(std::int64_t v) {
  return static_cast<std::uint32_t>(v);
}

// Fused activation attributes the fusion pass adds to a Conv.
struct Activation {
  bool silu = false;
  float min = -std::numeric_limits<float>::infinity();
  float max = std::numeric_limits<float>::infinity();
};

Activation activation(const Node& node) {
  Activation a;
  a.silu = node.attr_string("yolo_activation", "") == "silu";
  a.min = node.attr_float("yolo_min", a.min);
  a.max = node.attr_float("yolo_max", a.max);
  return a;
}

const Tensor& constant_input(const Graph& graph, const Node& node, std::size_t i,
                             const char* what) {
  const auto& v = input_value(graph, node, i);
  if (!v.constant || v.constant->dtype() != DType::kFloat32) {
    graph.fail(node, std::string(what) + " ('" + v.name + "') must be a float32 initializer");
  }
  return *v.constant;
}

// One windowed XNNPACK operator (Conv, ConvTranspose, MaxPool, AveragePool) from NHWC to NHWC.
template <typename Window>
class WindowStep : public Step {
 public:
  WindowStep(Window op, const ValueView& in, const ValueView& out)
      : op_(std::move(op)),
        batch_(static_cast<std::size_t>(in.physical[0])),
        height_(static_cast<std::size_t>(in.physical[1])),
        width_(static_cast<std::size_t>(in.physical[2])),
        in_(in.f32()),
        out_(out.f32()) {}
  void setup(pthreadpool_t pool) override { op_.setup(batch_, height_, width_, in_, out_, pool); }
  void run(pthreadpool_t pool) override { op_.run(pool); }

 private:
  Window op_;
  std::size_t batch_, height_, width_;
  const float* in_;
  float* out_;
};

// A convolution with an optional SiLU applied in place after it.
class ConvStep : public WindowStep<xnn::Conv2dF32> {
 public:
  ConvStep(xnn::Conv2dF32 conv, const Activation& act, const ValueView& in, const ValueView& out)
      : WindowStep(std::move(conv), in, out),
        silu_(act.silu),
        pixels_(static_cast<std::size_t>(out.pixels())),
        channels_(static_cast<std::size_t>(out.channels())),
        stride_(static_cast<std::size_t>(out.pixel_stride)),
        out_(out.f32()) {}
  void run(pthreadpool_t pool) override {
    WindowStep::run(pool);
    if (silu_) xnn::silu_f32(pixels_, channels_, out_, stride_, out_, stride_, pool);
  }

 private:
  bool silu_;
  std::size_t pixels_, channels_, stride_;
  float* out_;
};

// Conv and ConvTranspose: NHWC with pixel strides, never folded, constant float weights and an
// optional constant float bias. Each builds its XNNPACK step from those.
class ConvFamilySpec : public OpSpec {
 public:
  ConvFamilySpec() : OpSpec(kNhwcStrided) {}
  bool foldable() const override { return false; }
  std::unique_ptr<Step> create_step(const StepContext& context) const override {
    const Tensor& weights = constant_input(context.graph, context.node, 1, "the weights");
    std::span<const float> bias;
    if (has_input(context.node, 2)) {
      bias = constant_input(context.graph, context.node, 2, "the bias").values<float>();
    }
    return make_step(context.graph, context.node, context.inputs[0], context.outputs[0], weights,
                     bias);
  }

 protected:
  // The checks both share: arity, the attributes `known`, a float input, the constants.
  static void check_conv(const Graph& graph, const Node& node,
                         std::initializer_list<const char*> known) {
    check_arity(graph, node, 2, 3, 1);
    check_attributes(graph, node, known);
    check_input_dtype(graph, node, 0, {DType::kFloat32});
    constant_input(graph, node, 1, "the weights");
    if (has_input(node, 2)) constant_input(graph, node, 2, "the bias");
  }
  virtual std::unique_ptr<Step> make_step(const Graph& graph, const Node& node, const ValueView& in,
                                          const ValueView& out, const Tensor& weights,
                                          std::span<const float> bias) const = 0;
};

class ConvSpec : public ConvFamilySpec {
 public:
  void check(const Graph& graph, const Node& node) const override {
    check_conv(graph, node, {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
  }
  void infer(Graph& graph, const Node& node) const override {
    const auto& x = input_value(graph, node, 0).shape;
    const auto& w = input_value(graph, node, 1).shape;
    if (has_input(node, 2) && (w.empty() || input_value(graph, node, 2).shape != Shape{w[0]})) {
      graph.fail(node, "bias must have one value per output channel");
    }
    set_output(graph, node, 0, DType::kFloat32, conv_output_shape(graph, node, x, w));
  }

 protected:
  std::unique_ptr<Step> make_step(const Graph& g, const Node& node, const ValueView& in,
                                  const ValueView& out, const Tensor& w,
                                  std::span<const float> bias) const override {
    if (conv_output_shape(g, node, in.shape, w.shape()) != out.shape) {
      g.fail(node, "the planned output shape " + shape_text(out.shape) +
                       " does not match the convolution's");
    }
    const auto win = resolve_window(g, node, in.shape, w.shape()[2], w.shape()[3]);
    const auto act = activation(node);
    xnn::Conv2dParams p;
    p.window = win.window;
    p.groups = u32(node.attr_int("group", 1));
    p.input_channels = static_cast<std::size_t>(in.shape[1]);
    p.output_channels = static_cast<std::size_t>(out.shape[1]);
    p.input_pixel_stride = static_cast<std::size_t>(in.pixel_stride);
    p.output_pixel_stride = static_cast<std::size_t>(out.pixel_stride);
    p.output_min = act.min;
    p.output_max = act.max;
    return std::make_unique<ConvStep>(xnn::Conv2dF32(p, w.values<float>(), bias, node.name), act,
                                      in, out);
  }
};

class ConvTransposeSpec : public ConvFamilySpec {
 public:
  void check(const Graph& graph, const Node& node) const override {
    check_conv(graph, node,
               {"auto_pad", "dilations", "group", "kernel_shape", "output_padding", "output_shape",
                "pads", "strides"});
    const auto auto_pad = node.attr_string("auto_pad", "NOTSET");
    if (auto_pad != "NOTSET" && auto_pad != "VALID" && !node.has_attribute("output_shape")) {
      graph.fail(node, "auto_pad '" + auto_pad + "' without output_shape is not supported");
    }
  }
  static xnn::Deconv2dParams params(const Graph& graph, const Node& node, const Shape& x,
                                    const Shape& w, Shape& out) {
    if (x.size() != 4 || w.size() != 4) {
      graph.fail(node, "only 2-D ConvTranspose (4-D input and weights) is supported");
    }
    const std::int64_t group = node.attr_int("group", 1);
    if (group < 1 || w[0] != x[1] || w[0] % group != 0) {
      graph.fail(node, "weights " + shape_text(w) + " do not fit input " + shape_text(x));
    }
    auto two = [&](const char* key, std::int64_t fallback) {
      auto v = node.attr_ints(key);
      if (v.empty()) return std::vector<std::int64_t>{fallback, fallback};
      if (v.size() != 2) graph.fail(node, std::string(key) + " must have 2 values");
      return v;
    };
    const auto strides = two("strides", 1);
    const auto dil = two("dilations", 1);
    const auto opad = two("output_padding", 0);
    auto pads = node.attr_ints("pads");
    if (pads.empty()) pads = {0, 0, 0, 0};
    if (pads.size() != 4) graph.fail(node, "pads must have 4 values");
    const std::int64_t kh = w[2], kw = w[3];
    const auto requested = node.attr_ints("output_shape");
    std::int64_t out_h = 0, out_w = 0;
    for (int a = 0; a < 2; ++a) {
      const std::int64_t k = a == 0 ? kh : kw;
      const std::int64_t full = strides[a] * (x[2 + a] - 1) + opad[a] + dil[a] * (k - 1) + 1;
      if (!requested.empty()) {
        const std::int64_t target = requested[requested.size() - 2 + a];
        const std::int64_t total = full - target;
        if (total < 0) graph.fail(node, "output_shape larger than the full output");
        const bool upper = node.attr_string("auto_pad", "NOTSET") == "SAME_UPPER";
        pads[a] = upper ? total / 2 : total - total / 2;
        pads[2 + a] = total - pads[a];
      }
      const std::int64_t size = full - pads[a] - pads[2 + a];
      if (size < 1) graph.fail(node, "the output would be empty");
      (a == 0 ? out_h : out_w) = size;
    }
    out = {x[0], w[1] * group, out_h, out_w};
    xnn::Deconv2dParams p;
    p.window = {u32(kh),     u32(kw),      u32(strides[0]), u32(strides[1]), u32(dil[0]),
                u32(dil[1]), u32(pads[0]), u32(pads[1]),    u32(pads[2]),    u32(pads[3])};
    p.output_padding_height = u32(opad[0]);
    p.output_padding_width = u32(opad[1]);
    p.groups = u32(group);
    p.input_channels = static_cast<std::size_t>(x[1]);
    p.output_channels = static_cast<std::size_t>(out[1]);
    return p;
  }
  void infer(Graph& graph, const Node& node) const override {
    Shape out;
    params(graph, node, input_value(graph, node, 0).shape, input_value(graph, node, 1).shape, out);
    set_output(graph, node, 0, DType::kFloat32, out);
  }

 protected:
  std::unique_ptr<Step> make_step(const Graph& g, const Node& node, const ValueView& in,
                                  const ValueView& out, const Tensor& w,
                                  std::span<const float> bias) const override {
    Shape shape;
    auto p = params(g, node, in.shape, w.shape(), shape);
    p.input_pixel_stride = static_cast<std::size_t>(in.pixel_stride);
    p.output_pixel_stride = static_cast<std::size_t>(out.pixel_stride);
    return std::make_unique<WindowStep<xnn::Deconv2dF32>>(
        xnn::Deconv2dF32(p, w.values<float>(), bias, node.name), in, out);
  }
};

class PoolSpec : public OpSpec {
 public:
  explicit PoolSpec(bool max) : OpSpec(kNhwcStrided), max_(max) {}
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, 1, 1, 1);
    check_input_dtype(graph, node, 0, {DType::kFloat32});
    if (max_) {
      check_attributes(graph, node,
                       {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads",
                        "storage_order", "strides"});
    } else {
      check_attributes(graph, node,
                       {"auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads",
                        "strides", "dilations"});
    }
    if (node.attr_ints("kernel_shape").size() != 2) {
      graph.fail(node, "kernel_shape must have 2 values (2-D pooling)");
    }
  }
  void infer(Graph& graph, const Node& node) const override {
    const auto& x = input_value(graph, node, 0);
    const auto win = resolve_window(graph, node, x.shape, 1, 1);
    set_output(graph, node, 0, DType::kFloat32, {x.shape[0], x.shape[1], win.out_h, win.out_w});
  }
  bool foldable() const override { return false; }
  std::unique_ptr<Step> create_step(const StepContext& context) const override {
    const auto& node = context.node;
    const auto& in = context.inputs[0];
    const auto& out = context.outputs[0];
    const auto win = resolve_window(context.graph, node, in.shape, 1, 1);
    xnn::Pool2dParams p;
    p.window = win.window;
    p.channels = static_cast<std::size_t>(in.shape[1]);
    p.input_pixel_stride = static_cast<std::size_t>(in.pixel_stride);
    p.output_pixel_stride = static_cast<std::size_t>(out.pixel_stride);
    if (max_) {
      return std::make_unique<WindowStep<xnn::MaxPool2dF32>>(xnn::MaxPool2dF32(p, node.name), in,
                                                             out);
    }
    return std::make_unique<WindowStep<xnn::AvgPool2dF32>>(
        xnn::AvgPool2dF32(p, node.attr_int("count_include_pad", 0) != 0, node.name), in, out);
  }

 private:
  bool max_;
};

class GlobalAvgPoolStep : public Step {
 public:
  GlobalAvgPoolStep(const ValueView& in, const ValueView& out, const std::string& name)
      : op_(static_cast<std::size_t>(in.physical[3]), static_cast<std::size_t>(in.pixel_stride),
            static_cast<std::size_t>(out.pixel_stride), name),
        batch_(static_cast<std::size_t>(in.physical[0])),
        pixels_(static_cast<std::size_t>(in.physical[1] * in.physical[2])),
        in_(in.f32()),
        out_(out.f32()) {}
  void setup(pthreadpool_t pool) override { op_.setup(batch_, pixels_, in_, out_, pool); }
  void run(pthreadpool_t pool) override { op_.run(pool); }

 private:
  xnn::GlobalAvgPoolF32 op_;
  std::size_t batch_, pixels_;
  const float* in_;
  float* out_;
};

class GlobalAvgPoolSpec : public OpSpec {
 public:
  GlobalAvgPoolSpec() : OpSpec(kNhwcStrided) {}
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, 1, 1, 1);
    check_attributes(graph, node, {});
    check_input_dtype(graph, node, 0, {DType::kFloat32});
  }
  void infer(Graph& graph, const Node& node) const override {
    const auto& x = input_value(graph, node, 0);
    if (x.shape.size() != 4) graph.fail(node, "only 4-D input is supported");
    set_output(graph, node, 0, DType::kFloat32, {x.shape[0], x.shape[1], 1, 1});
  }
  bool foldable() const override { return false; }
  std::unique_ptr<Step> create_step(const StepContext& context) const override {
    return std::make_unique<GlobalAvgPoolStep>(context.inputs[0], context.outputs[0],
                                               context.node.name);
  }
};

}  // namespace

ResolvedWindow resolve_window(const Graph& graph, const Node& node, const Shape& in,
                              std::int64_t kh, std::int64_t kw) {
  if (in.size() != 4) graph.fail(node, "only 2-D windows (4-D NCHW input) are supported");
  const auto kernel = node.attr_ints("kernel_shape");
  if (!kernel.empty()) {
    if (kernel.size() != 2) graph.fail(node, "kernel_shape must have 2 values");
    kh = kernel[0];
    kw = kernel[1];
  }
  std::int64_t sh = 1, sw = 1, dh = 1, dw = 1, top = 0, left = 0, bottom = 0, right = 0;
  auto pair = [&](const char* key, std::int64_t& a, std::int64_t& b) {
    const auto v = node.attr_ints(key);
    if (v.empty()) return;
    if (v.size() != 2) graph.fail(node, std::string(key) + " must have 2 values");
    a = v[0];
    b = v[1];
  };
  pair("strides", sh, sw);
  pair("dilations", dh, dw);
  if (kh < 1 || kw < 1 || sh < 1 || sw < 1 || dh < 1 || dw < 1) {
    graph.fail(node, "kernel, strides and dilations must be positive");
  }
  const auto pads = node.attr_ints("pads");
  if (!pads.empty()) {
    if (pads.size() != 4) graph.fail(node, "pads must have 4 values");
    if (*std::min_element(pads.begin(), pads.end()) < 0) graph.fail(node, "negative pads");
    top = pads[0];
    left = pads[1];
    bottom = pads[2];
    right = pads[3];
  }
  const auto auto_pad = node.attr_string("auto_pad", "NOTSET");
  const bool ceil_mode = node.attr_int("ceil_mode", 0) != 0;
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    auto same = [&](std::int64_t size, std::int64_t k, std::int64_t s, std::int64_t d,
                    std::int64_t& begin, std::int64_t& end) {
      const std::int64_t out = (size + s - 1) / s;
      const std::int64_t total = std::max<std::int64_t>(0, (out - 1) * s + (k - 1) * d + 1 - size);
      begin = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      end = total - begin;
    };
    same(in[2], kh, sh, dh, top, bottom);
    same(in[3], kw, sw, dw, left, right);
  } else if (auto_pad == "VALID") {
    top = left = bottom = right = 0;
  } else if (auto_pad != "NOTSET") {
    graph.fail(node, "auto_pad '" + auto_pad + "' is not supported");
  }
  ResolvedWindow w;
  w.out_h = out_size(in[2], kh, sh, dh, top + bottom, ceil_mode);
  w.out_w = out_size(in[3], kw, sw, dw, left + right, ceil_mode);
  if (w.out_h < 1 || w.out_w < 1) {
    graph.fail(node, "the input " + shape_text(in) + " is smaller than the window");
  }
  if (ceil_mode) {
    // With static shapes ceil_mode is extra bottom/right padding.
    bottom = std::max(bottom, (w.out_h - 1) * sh + dh * (kh - 1) + 1 - in[2] - top);
    right = std::max(right, (w.out_w - 1) * sw + dw * (kw - 1) + 1 - in[3] - left);
  }
  w.window = {u32(kh), u32(kw),  u32(sh),   u32(sw),     u32(dh),
              u32(dw), u32(top), u32(left), u32(bottom), u32(right)};
  return w;
}

Shape conv_output_shape(const Graph& graph, const Node& node, const Shape& x, const Shape& w) {
  if (x.size() != 4 || w.size() != 4) {
    graph.fail(node, "only 2-D convolution (4-D input and weights) is supported");
  }
  const std::int64_t group = node.attr_int("group", 1);
  if (group < 1 || w[0] < 1 || x[1] != w[1] * group || w[0] % group != 0) {
    graph.fail(node, "weights " + shape_text(w) + " do not fit input " + shape_text(x) +
                         " with group " + std::to_string(group));
  }
  const auto win = resolve_window(graph, node, x, w[2], w[3]);
  if (win.window.kernel_height != w[2] || win.window.kernel_width != w[3]) {
    graph.fail(node, "kernel_shape differs from weights");
  }
  return {x[0], w[0], win.out_h, win.out_w};
}

void register_nn_ops(Registry& r) {
  add<ConvSpec>(r, "Conv").set_int8({Int8Lowering::kConv, QuantizedInputs::kFirst});
  add<ConvTransposeSpec>(r, "ConvTranspose");
  add<PoolSpec>(r, "MaxPool", true)
      .set_int8({Int8Lowering::kMaxPool, QuantizedInputs::kFirst, true});
  add<PoolSpec>(r, "AveragePool", false);
  add<GlobalAvgPoolSpec>(r, "GlobalAveragePool");
}

}  // namespace yolo::runtime::ops
