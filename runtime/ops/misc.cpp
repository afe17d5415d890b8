// SPDX-License-Identifier: Apache-2.0
// Softmax, MatMul, Gemm, TopK, Resize (nearest; NHWC integer upsample with pixel strides) and the
// quantization ops. ConvInteger and MatMulInteger only load as part of the dynamic-INT8 chains the
// planner folds into FP32 Conv/MatMul.
#include <pthreadpool.h>

#include <cmath>
#include <stdexcept>

#include "runtime/kernels/matmul.h"
#include "runtime/kernels/quantize.h"
#include "runtime/kernels/resize.h"
#include "runtime/kernels/softmax.h"
#include "runtime/kernels/topk.h"
#include "runtime/ops/registry.h"

namespace yolo::runtime::ops {

namespace {

class SoftmaxSpec : public OpSpec {
 public:
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, 1, 1, 1);
    check_attributes(graph, node, {"axis"});
    check_input_dtype(graph, node, 0, {DType::kFloat32});
  }
  void infer(Graph& graph, const Node& node) const override {
    const auto& in = input_value(graph, node, 0);
    set_output(graph, node, 0, in.dtype, in.shape);
  }
  std::unique_ptr<Step> create_step(const StepContext& context) const override {
    // Opset 13 changed Softmax from "coerce to 2-D at axis (default 1)" to "along axis (-1)".
    const bool coerced = context.graph.opset < 13;
    return std::make_unique<SoftmaxStep>(coerced, context.node.attr_int("axis", coerced ? 1 : -1),
                                         context);
  }

 private:
  class SoftmaxStep : public Step {
   public:
    SoftmaxStep(bool coerced, std::int64_t axis, const StepContext& context)
        : coerced_(coerced), axis_(axis), in_(context.inputs[0]), out_(context.outputs[0]) {}
    void run(pthreadpool_t pool) override {
      if (coerced_)
        kernels::softmax_coerced(in_.cref(), axis_, out_.ref(), pool);
      else
        kernels::softmax(in_.cref(), axis_, out_.ref(), pool);
    }

   private:
    bool coerced_;
    std::int64_t axis_;
    ValueView in_, out_;
  };
};

class MatMulSpec : public OpSpec {
 public:
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, 2, 2, 1);
    check_attributes(graph, node, {});
    check_input_dtype(graph, node, 0, {DType::kFloat32});
    check_input_dtype(graph, node, 1, {DType::kFloat32});
  }
  void infer(Graph& graph, const Node& node) const override {
    set_output(graph, node, 0, DType::kFloat32, or_fail(graph, node, [&] {
                 return kernels::matmul_shape(input_value(graph, node, 0).shape,
                                              input_value(graph, node, 1).shape);
               }));
  }
  void compute_threaded(const Node&, std::span<const kernels::ConstTensorRef> in,
                        std::span<const kernels::TensorRef> out,
                        pthreadpool_t pool) const override {
    kernels::matmul(in[0], in[1], out[0], pool);
  }
};

class GemmSpec : public OpSpec {
 public:
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, 2, 3, 1);
    check_attributes(graph, node, {"alpha", "beta", "transA", "transB"});
    for (std::size_t i = 0; i < 3; ++i) check_input_dtype(graph, node, i, {DType::kFloat32});
  }
  void infer(Graph& graph, const Node& node) const override {
    set_output(graph, node, 0, DType::kFloat32, or_fail(graph, node, [&] {
                 return kernels::gemm_shape(
                     input_value(graph, node, 0).shape, input_value(graph, node, 1).shape,
                     node.attr_int("transA", 0) != 0, node.attr_int("transB", 0) != 0);
               }));
  }
  void compute(const Node& node, std::span<const kernels::ConstTensorRef> in,
               std::span<const kernels::TensorRef> out) const override {
    std::optional<kernels::ConstTensorRef> c;
    if (in.size() > 2 && in[2].data) c = in[2];
    kernels::gemm(in[0], in[1], c, node.attr_float("alpha", 1.0F), node.attr_float("beta", 1.0F),
                  node.attr_int("transA", 0) != 0, node.attr_int("transB", 0) != 0, out[0]);
  }
};

class TopKSpec : public OpSpec {
 public:
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, graph.opset >= 10 ? 2 : 1, 2, 2);
    check_attributes(graph, node, {"axis", "largest", "sorted", "k"});
  }
  static std::int64_t k(const Graph& graph, const Node& node) {
    if (!has_input(node, 1)) return node.attr_int("k", 0);
    const auto values = constant_ints(graph, node, 1, "k");
    if (values.size() != 1) graph.fail(node, "k must hold one value");
    return values[0];
  }
  void infer(Graph& graph, const Node& node) const override {
    const auto& in = input_value(graph, node, 0);
    const auto shape = or_fail(graph, node, [&] {
      return kernels::topk_shape(in.shape, k(graph, node), node.attr_int("axis", -1));
    });
    set_output(graph, node, 0, in.dtype, shape);
    set_output(graph, node, 1, DType::kInt64, shape);
  }
  void compute(const Node& node, std::span<const kernels::ConstTensorRef> in,
               std::span<const kernels::TensorRef> out) const override {
    const std::int64_t count = out[0].shape.empty()
                                   ? 0
                                   : out[0].shape[static_cast<std::size_t>(kernels::normalize_axis(
                                         node.attr_int("axis", -1), out[0].rank(), "TopK"))];
    kernels::topk(in[0], count, node.attr_int("axis", -1), node.attr_int("largest", 1) != 0, out[0],
                  out[1]);
  }
};

// Resize, nearest only: scales from the scales input, or sizes.
class ResizeSpec : public OpSpec {
 public:
  ResizeSpec() : OpSpec({.reads_strided = true, .writes_strided = true}) {}
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, 1, 4, 1);
    check_attributes(graph, node,
                     {"mode", "coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a",
                      "exclude_outside", "extrapolation_value"});
    const auto mode = node.attr_string("mode", "nearest");
    if (mode != "nearest") {
      graph.fail(node, "Resize mode '" + mode +
                           "' is not supported (only nearest); re-export with nearest upsampling");
    }
    or_fail(graph, node, [&] {
      kernels::coordinate_transform_from_string(
          node.attr_string("coordinate_transformation_mode", "half_pixel"));
      return kernels::nearest_mode_from_string(
          node.attr_string("nearest_mode", "round_prefer_floor"));
    });
  }
  struct Params {
    std::vector<float> scales;
    Shape out;
  };
  static Params params(const Graph& graph, const Node& node) {
    const auto& in = input_value(graph, node, 0);
    std::vector<float> scales;
    std::vector<std::int64_t> sizes;
    // Opset 10: (X, scales); 11+: (X, roi, scales, sizes). Empty tensors mean "not given".
    const std::size_t scales_input = graph.opset >= 11 ? 2 : 1;
    if (has_input(node, scales_input))
      scales = constant_floats(graph, node, scales_input, "scales");
    if (graph.opset >= 11 && has_input(node, 3)) sizes = constant_ints(graph, node, 3, "sizes");
    Params p;
    p.out = or_fail(graph, node, [&] { return kernels::resize_shape(in.shape, scales, sizes); });
    p.scales = kernels::resize_scales(in.shape, p.out, scales);
    return p;
  }
  void infer(Graph& graph, const Node& node) const override {
    set_output(graph, node, 0, input_value(graph, node, 0).dtype, params(graph, node).out);
  }
  static kernels::CoordinateTransform transform(const Node& node) {
    return kernels::coordinate_transform_from_string(
        node.attr_string("coordinate_transformation_mode", "half_pixel"));
  }
  static kernels::NearestMode nearest(const Node& node) {
    return kernels::nearest_mode_from_string(
        node.attr_string("nearest_mode", "round_prefer_floor"));
  }
  // Whether the resize is an integer upsample of H and W where output (y, x) reads input
  // (y / f, x / f): checked by running the kernel on an index image.
  static bool integer_upsample(const Graph& graph, const Node& node) {
    const auto& in = input_value(graph, node, 0);
    if (in.dtype != DType::kFloat32 || in.shape.size() != 4) return false;
    const auto p = params(graph, node);
    if (p.out[0] != in.shape[0] || p.out[1] != in.shape[1]) return false;
    if (in.shape[2] == 0 || in.shape[3] == 0) return false;
    if (p.out[2] % in.shape[2] != 0 || p.out[3] % in.shape[3] != 0) return false;
    const std::int64_t fh = p.out[2] / in.shape[2], fw = p.out[3] / in.shape[3];
    Tensor probe(DType::kFloat32, {1, 1, in.shape[2], in.shape[3]});
    for (std::int64_t i = 0; i < probe.size(); ++i)
      probe.data_as<float>()[i] = static_cast<float>(i);
    Tensor result(DType::kFloat32, {1, 1, p.out[2], p.out[3]});
    std::vector<float> scales{1.0F, 1.0F, p.scales[2], p.scales[3]};
    kernels::resize_nearest(probe, scales, transform(node), nearest(node), result);
    for (std::int64_t y = 0; y < p.out[2]; ++y) {
      for (std::int64_t x = 0; x < p.out[3]; ++x) {
        const float expected = static_cast<float>((y / fh) * in.shape[3] + x / fw);
        if (result.data_as<float>()[y * p.out[3] + x] != expected) return false;
      }
    }
    return true;
  }
  LayoutRule layout_rule(const Graph& graph, const Node& node) const override {
    return integer_upsample(graph, node) ? LayoutRule::kNhwc : LayoutRule::kNchw;
  }
  std::unique_ptr<Step> create_step(const StepContext& context) const override {
    const auto& in = context.inputs[0];
    const auto& out = context.outputs[0];
    if (out.layout == Layout::kNhwc) {
      kernels::NhwcUpsample u;
      u.batch = in.physical[0];
      u.height = in.physical[1];
      u.width = in.physical[2];
      u.channels = in.physical[3];
      u.factor_h = out.physical[1] / in.physical[1];
      u.factor_w = out.physical[2] / in.physical[2];
      u.in_pixel_stride = in.pixel_stride;
      u.out_pixel_stride = out.pixel_stride;
      return std::make_unique<UpsampleStep>(u, in.f32(), out.f32());
    }
    return std::make_unique<ResizeStep>(params(context.graph, context.node).scales,
                                        transform(context.node), nearest(context.node), in, out);
  }

 private:
  // Upsamples one input row per task: rows are independent, and the image's batch and height
  // fold into one row count because both are dense in the pixel-strided layout.
  class UpsampleStep : public Step {
   public:
    UpsampleStep(kernels::NhwcUpsample params, const float* in, float* out)
        : rows_(static_cast<std::size_t>(params.batch * params.height)),
          row_(params),
          in_(in),
          out_(out) {
      row_.batch = 1;
      row_.height = 1;
    }
    void run(pthreadpool_t pool) override {
      pthreadpool_parallelize_1d(
          pool,
          [](void* self, std::size_t row) {
            const auto& s = *static_cast<const UpsampleStep*>(self);
            const auto r = static_cast<std::int64_t>(row);
            kernels::upsample_nearest_nhwc(s.row_,
                                           s.in_ + r * s.row_.width * s.row_.in_pixel_stride,
                                           s.out_ + r * s.row_.factor_h * s.row_.width *
                                                        s.row_.factor_w * s.row_.out_pixel_stride);
          },
          this, rows_, 0);
    }

   private:
    std::size_t rows_;
    kernels::NhwcUpsample row_;
    const float* in_;
    float* out_;
  };
  class ResizeStep : public Step {
   public:
    ResizeStep(std::vector<float> scales, kernels::CoordinateTransform transform,
               kernels::NearestMode mode, ValueView in, ValueView out)
        : scales_(std::move(scales)),
          transform_(transform),
          mode_(mode),
          in_(std::move(in)),
          out_(std::move(out)) {}
    void run(pthreadpool_t) override {
      kernels::resize_nearest(in_.cref(), scales_, transform_, mode_, out_.ref());
    }

   private:
    std::vector<float> scales_;
    kernels::CoordinateTransform transform_;
    kernels::NearestMode mode_;
    ValueView in_, out_;
  };
};

class DynamicQuantizeLinearSpec : public OpSpec {
 public:
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, 1, 1, 3);
    check_attributes(graph, node, {});
    check_input_dtype(graph, node, 0, {DType::kFloat32});
  }
  void infer(Graph& graph, const Node& node) const override {
    set_output(graph, node, 0, DType::kUInt8, input_value(graph, node, 0).shape);
    set_output(graph, node, 1, DType::kFloat32, {});
    set_output(graph, node, 2, DType::kUInt8, {});
  }
  void compute(const Node&, std::span<const kernels::ConstTensorRef> in,
               std::span<const kernels::TensorRef> out) const override {
    const auto p = kernels::dynamic_quantize_linear(in[0], out[0]);
    *out[1].as<float>() = p.scale;
    *out[2].as<std::uint8_t>() = p.zero_point;
  }
};

class QuantizeSpec : public OpSpec {
 public:
  explicit QuantizeSpec(bool dequantize) : dequantize_(dequantize) {}
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, 2, 3, 1);
    check_attributes(graph, node, {"axis", "saturate"});
    if (dequantize_) {
      check_input_dtype(graph, node, 0, {DType::kInt8, DType::kUInt8, DType::kInt32});
    } else {
      check_input_dtype(graph, node, 0, {DType::kFloat32});
      check_input_dtype(graph, node, 2, {DType::kInt8, DType::kUInt8});
    }
  }
  void infer(Graph& graph, const Node& node) const override {
    const auto& in = input_value(graph, node, 0);
    DType type = DType::kFloat32;
    if (!dequantize_) type = has_input(node, 2) ? input_value(graph, node, 2).dtype : DType::kUInt8;
    set_output(graph, node, 0, type, in.shape);
  }
  void compute(const Node& node, std::span<const kernels::ConstTensorRef> in,
               std::span<const kernels::TensorRef> out) const override {
    std::optional<kernels::ConstTensorRef> zero;
    if (in.size() > 2 && in[2].data) zero = in[2];
    if (dequantize_) {
      kernels::dequantize_linear(in[0], in[1], zero, node.attr_int("axis", 1), out[0]);
    } else {
      kernels::quantize_linear(in[0], in[1], zero, node.attr_int("axis", 1), out[0]);
    }
  }

 private:
  bool dequantize_;
};

// ConvInteger / MatMulInteger: shapes only; the int8 folding pass turns their chains into FP32.
class IntegerOpSpec : public OpSpec {
 public:
  explicit IntegerOpSpec(bool conv) : conv_(conv) {}
  void check(const Graph& graph, const Node& node) const override {
    check_arity(graph, node, 2, 4, 1);
    if (conv_) {
      check_attributes(graph, node,
                       {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
    } else {
      check_attributes(graph, node, {});
    }
    check_input_dtype(graph, node, 0, {DType::kInt8, DType::kUInt8});
    check_input_dtype(graph, node, 1, {DType::kInt8, DType::kUInt8});
  }
  void infer(Graph& graph, const Node& node) const override {
    const auto& x = input_value(graph, node, 0);
    const auto& w = input_value(graph, node, 1);
    if (conv_) {
      set_output(graph, node, 0, DType::kInt32, conv_output_shape(graph, node, x.shape, w.shape));
    } else {
      set_output(graph, node, 0, DType::kInt32,
                 or_fail(graph, node, [&] { return kernels::matmul_shape(x.shape, w.shape); }));
    }
  }
  bool foldable() const override { return false; }
  std::unique_ptr<Step> create_step(const StepContext& context) const override {
    context.graph.fail(context.node,
                       "is not part of a DynamicQuantizeLinear -> " + context.node.op_type +
                           " -> Cast -> Mul chain, the only form of dynamic INT8 the runtime "
                           "loads; run `yolo-edge quantize` on the FP32 model instead");
  }

 private:
  bool conv_;
};

}  // namespace

void register_misc_ops(Registry& r) {
  add<SoftmaxSpec>(r, "Softmax");
  add<MatMulSpec>(r, "MatMul");
  add<GemmSpec>(r, "Gemm");
  add<TopKSpec>(r, "TopK");
  add<ResizeSpec>(r, "Resize").set_int8({Int8Lowering::kUpsample, QuantizedInputs::kFirst, true});
  add<DynamicQuantizeLinearSpec>(r, "DynamicQuantizeLinear");
  add<QuantizeSpec>(r, "QuantizeLinear", false);
  add<QuantizeSpec>(r, "DequantizeLinear", true);
  add<IntegerOpSpec>(r, "ConvInteger", true);
  add<IntegerOpSpec>(r, "MatMulInteger", false);
}

}  // namespace yolo::runtime::ops
