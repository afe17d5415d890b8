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

class ToNchwStep : public Step {
 public:
  explicit ToNchwStep(const StepContext& context) {
    const auto& in = context.inputs[0];
    t_ = {in.f32(), context.outputs[0].f32(), in.physical[1] * in.physical[2], in.physical[3],
          in.pixel_stride};
    batch_ = in.physical[0];
  }
  void run(pthreadpool_t pool) override {
    const auto tiles = static_cast<std::size_t>((t_.pixels + kTile - 1) / kTile);
    for (std::int64_t n = 0; n < batch_; ++n) {
      current_ = t_;
      current_.in += n * t_.pixels * t_.pixel_stride;
      current_.out += n * t_.pixels * t_.channels;
      pthreadpool_parallelize_1d(
          t_.pixels * t_.channels < kParallelElements ? nullptr : pool,
          [](void* ctx, std::size_t tile) {
            const auto& t = *static_cast<const TransposeTask*>(ctx);
            const std::int64_t p0 = static_cast<std::int64_t>(tile) * kTile;
            const std::int64_t p1 = std::min(t.pixels, p0 + kTile);
            for (std::int64_t c = 0; c < t.channels; ++c) {
              float* o = t.out + c * t.pixels;
              for (std::int64_t p = p0; p < p1; ++p) o[p] = t.in[p * t.pixel_stride + c];
            }
          },
          &current_, tiles, 0);
    }
  }

 private:
  TransposeTask t_{}, current_{};
  std::int64_t batch_ = 1;
};

class ToNhwcStep : public Step {
 public:
  explicit ToNhwcStep(const StepContext& context) {
    const auto& out = context.outputs[0];
    t_ = {context.inputs[0].f32(), out.f32(), out.physical[1] * out.physical[2], out.physical[3],
          out.pixel_stride};
    batch_ = out.physical[0];
  }
  void run(pthreadpool_t pool) override {
    const auto tiles = static_cast<std::size_t>((t_.pixels + kTile - 1) / kTile);
    for (std::int64_t n = 0; n < batch_; ++n) {
      current_ = t_;
      current_.in += n * t_.pixels * t_.channels;
      current_.out += n * t_.pixels * t_.pixel_stride;
      pthreadpool_parallelize_1d(
          t_.pixels * t_.channels < kParallelElements ? nullptr : pool,
          [](void* ctx, std::size_t tile) {
            const auto& t = *static_cast<const TransposeTask*>(ctx);
            const std::int64_t p0 = static_cast<std::int64_t>(tile) * kTile;
            const std::int64_t p1 = std::min(t.pixels, p0 + kTile);
            for (std::int64_t p = p0; p < p1; ++p) {
              float* o = t.out + p * t.pixel_stride;
              for (std::int64_t c = 0; c < t.channels; ++c) o[c] = t.in[c * t.pixels + p];
            }
          },
          &current_, tiles, 0);
    }
  }

 private:
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
        return std::make_unique<ToNchwStep>(context);
      case Kind::kToNhwc:
        return std::make_unique<ToNhwcStep>(context);
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
