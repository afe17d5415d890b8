// SPDX-License-Identifier: Apache-2.0
// The engine's internal layout ops (domain "yolo"), inserted by the planner: ToNchw and ToNhwc
// convert 4-D float activations between layouts, Copy makes a dense copy of a channel slice for a
// consumer that cannot read pixel strides.
#include <algorithm>

#include "runtime/ops/registry.h"
#include "runtime/xnn/unary.h"

namespace yolo::runtime::ops {

namespace {

// Pixels per tile of the transposes: a tile of pixels x all channels stays in cache.
constexpr std::int64_t kTile = 32;
// Below this many elements a transpose runs on the calling thread: waking the pool costs more.
constexpr std::int64_t kParallelElements = 32768;

struct TransposeTask {
  const float* in;
  float* out;
  std::int64_t pixels, channels, pixel_stride;
};

// ToNchw (NHWC with a pixel stride in, dense NCHW out) or, with kToNhwc, ToNhwc (the reverse),
// tile by tile.
template <bool kToNhwc>
class TransposeStep : public Step {
 public:
  explicit TransposeStep(const StepContext& context) {
    const auto& nhwc = kToNhwc ? context.outputs[0] : context.inputs[0];
    t_ = {context.inputs[0].f32(), context.outputs[0].f32(), nhwc.physical[1] * nhwc.physical[2],
          nhwc.physical[3], nhwc.pixel_stride};
    batch_ = nhwc.physical[0];
  }
  void run(pthreadpool_t pool) override {
    const auto tiles = static_cast<std::size_t>((t_.pixels + kTile - 1) / kTile);
    const std::int64_t nhwc_image = t_.pixels * t_.pixel_stride,
                       nchw_image = t_.pixels * t_.channels;
    for (std::int64_t n = 0; n < batch_; ++n) {
      current_ = t_;
      current_.in += n * (kToNhwc ? nchw_image : nhwc_image);
      current_.out += n * (kToNhwc ? nhwc_image : nchw_image);
      pthreadpool_parallelize_1d(t_.pixels * t_.channels < kParallelElements ? nullptr : pool,
                                 &run_tile, &current_, tiles, 0);
    }
  }

 private:
  static void run_tile(void* context, std::size_t tile) {
    const auto& t = *static_cast<const TransposeTask*>(context);
    const std::int64_t p0 = static_cast<std::int64_t>(tile) * kTile;
    const std::int64_t p1 = std::min(t.pixels, p0 + kTile);
    if constexpr (kToNhwc) {
      for (std::int64_t p = p0; p < p1; ++p) {
        float* o = t.out + p * t.pixel_stride;
        for (std::int64_t c = 0; c < t.channels; ++c) o[c] = t.in[c * t.pixels + p];
      }
    } else {
      for (std::int64_t c = 0; c < t.channels; ++c) {
        float* o = t.out + c * t.pixels;
        for (std::int64_t p = p0; p < p1; ++p) o[p] = t.in[p * t.pixel_stride + c];
      }
    }
  }

  TransposeTask t_{}, current_{};
  std::int64_t batch_ = 1;
};

class CopyStep : public Step {
 public:
  explicit CopyStep(const StepContext& context)
      : op_(static_cast<std::size_t>(context.inputs[0].channels()),
            static_cast<std::size_t>(context.inputs[0].pixel_stride),
            static_cast<std::size_t>(context.outputs[0].pixel_stride), context.node.name),
        rows_(static_cast<std::size_t>(context.inputs[0].pixels())),
        in_(context.inputs[0].data),
        out_(context.outputs[0].data) {}
  void setup(pthreadpool_t pool) override { op_.setup(rows_, in_, out_, pool); }
  void run(pthreadpool_t pool) override { op_.run(pool); }

 private:
  xnn::CopyX32 op_;
  std::size_t rows_;
  const void* in_;
  void* out_;
};

enum class Kind { kToNchw, kToNhwc, kCopy };

class LayoutSpec : public OpSpec {
 public:
  explicit LayoutSpec(Kind kind)
      : OpSpec({.layout = kind == Kind::kToNchw ? LayoutRule::kNchw : LayoutRule::kNhwc,
                .reads_strided = kind != Kind::kToNhwc,
                .writes_strided = kind != Kind::kToNchw}),
        kind_(kind) {}
  void infer(Graph& graph, const Node& node) const override {
    const auto& in = input_value(graph, node, 0);
    set_output(graph, node, 0, in.dtype, in.shape);
  }
  bool foldable() const override { return false; }
  std::unique_ptr<Step> create_step(const StepContext& context) const override {
    switch (kind_) {
      case Kind::kToNchw:
        return std::make_unique<TransposeStep<false>>(context);
      case Kind::kToNhwc:
        return std::make_unique<TransposeStep<true>>(context);
      case Kind::kCopy:
        break;
    }
    return std::make_unique<CopyStep>(context);
  }

 private:
  Kind kind_;
};

}  // namespace

void register_internal_ops(Registry& r) {
  r[{"yolo", "ToNchw"}] = std::make_unique<LayoutSpec>(Kind::kToNchw);
  r[{"yolo", "ToNhwc"}] = std::make_unique<LayoutSpec>(Kind::kToNhwc);
  r[{"yolo", "Copy"}] = std::make_unique<LayoutSpec>(Kind::kCopy);
}

}  // namespace yolo::runtime::ops
