// SPDX-License-Identifier: Apache-2.0
// The NHWC paths of the engine against a naive NCHW computation: channel Split views read with
// pixel strides, Concat inputs written in place or copied, elementwise ops with per-channel and
// general broadcast constants, MaxPool, nearest upsample, GlobalAveragePool, and the conversion
// back to NCHW for Reshape/Softmax and the outputs.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "runtime/engine/engine.h"
#include "tests/runtime/test_model_builder.h"

namespace yolo::runtime {
namespace {

using test::ModelBuilder;

constexpr std::int64_t C = 6, H = 8, W = 8;

// Naive NCHW tensor for the reference.
struct Ref {
  std::int64_t c, h, w;
  std::vector<float> v;
  float& at(std::int64_t k, std::int64_t y, std::int64_t x) {
    return v[static_cast<std::size_t>((k * h + y) * w + x)];
  }
};

Ref make(std::int64_t c, std::int64_t h, std::int64_t w) {
  return {c, h, w, std::vector<float>(static_cast<std::size_t>(c * h * w))};
}

TEST(OpsNhwc, SplitConcatElementwisePoolResizeMatchNaive) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0F, 1.0F);
  std::vector<float> channel_const(4), row_const(H), input(C * H * W);
  for (auto& v : channel_const) v = dist(rng);
  for (auto& v : row_const) v = dist(rng);
  for (auto& v : input) v = dist(rng);
  std::vector<float> identity(C * C, 0.0F);
  for (std::int64_t i = 0; i < C; ++i) identity[static_cast<std::size_t>(i * C + i)] = 1.0F;

  ModelBuilder b(13);
  b.input("x", {1, C, H, W}).output("y1").output("y2");
  b.floats("eye", {C, C, 1, 1}, identity);
  b.floats("chan", {1, 4, 1, 1}, channel_const);
  b.floats("rows", {1, 1, H, 1}, row_const);
  b.floats("scales", {4}, {1, 1, 2, 2});
  b.ints("target", {3}, {1, 10, -1});
  b.node("Conv", {"x", "eye"}, {"a"});
  b.ints("split", {2}, {2, 4});
  ModelBuilder::attr(b.node("Split", {"a", "split"}, {"s0", "s1"}), "axis", std::int64_t{1});
  b.node("Sigmoid", {"s1"}, {"t"});
  b.node("Exp", {"s0"}, {"e"});
  b.node("Add", {"t", "chan"}, {"k"});
  b.node("Mul", {"k", "rows"}, {"q"});
  ModelBuilder::attr(b.node("Concat", {"e", "q", "s1"}, {"cat"}), "axis", std::int64_t{1});
  auto& pool = b.node("MaxPool", {"cat"}, {"p"});
  ModelBuilder::attr(pool, "kernel_shape", std::vector<std::int64_t>{2, 2});
  ModelBuilder::attr(pool, "strides", std::vector<std::int64_t>{2, 2});
  auto& up = b.node("Resize", {"p", "", "scales"}, {"u"});
  ModelBuilder::attr(up, "mode", std::string("nearest"));
  ModelBuilder::attr(up, "coordinate_transformation_mode", std::string("asymmetric"));
  ModelBuilder::attr(up, "nearest_mode", std::string("floor"));
  b.node("Add", {"u", "cat"}, {"r"});
  b.node("GlobalAveragePool", {"r"}, {"g"});
  b.node("Reshape", {"r", "target"}, {"flat"});
  ModelBuilder::attr(b.node("Softmax", {"flat"}, {"y1"}), "axis", std::int64_t{-1});
  b.node("Flatten", {"g"}, {"y2"});

  auto engine = Engine::load(b.save("nhwc.onnx"), EngineOptions{});
  ASSERT_EQ(engine->input_layout(), InputLayout::kNhwcFloat);
  auto* dst = static_cast<float*>(engine->input_data());
  for (std::int64_t k = 0; k < C; ++k)
    for (std::int64_t p = 0; p < H * W; ++p)
      dst[p * C + k] = input[static_cast<std::size_t>(k * H * W + p)];
  engine->run();

  Ref x{C, H, W, input};
  Ref cat = make(10, H, W);
  for (std::int64_t y = 0; y < H; ++y) {
    for (std::int64_t xx = 0; xx < W; ++xx) {
      for (std::int64_t k = 0; k < 2; ++k) cat.at(k, y, xx) = std::exp(x.at(k, y, xx));
      for (std::int64_t k = 0; k < 4; ++k) {
        const float s = x.at(2 + k, y, xx);
        const float t = 1.0F / (1.0F + std::exp(-s));
        cat.at(2 + k, y, xx) = (t + channel_const[static_cast<std::size_t>(k)]) *
                               row_const[static_cast<std::size_t>(y)];
        cat.at(6 + k, y, xx) = s;
      }
    }
  }
  Ref r = make(10, H, W);
  std::vector<float> mean(10, 0.0F);
  for (std::int64_t k = 0; k < 10; ++k) {
    for (std::int64_t y = 0; y < H; ++y) {
      for (std::int64_t xx = 0; xx < W; ++xx) {
        const std::int64_t py = y / 2 * 2, px = xx / 2 * 2;
        const float m = std::max(std::max(cat.at(k, py, px), cat.at(k, py, px + 1)),
                                 std::max(cat.at(k, py + 1, px), cat.at(k, py + 1, px + 1)));
        r.at(k, y, xx) = m + cat.at(k, y, xx);
        mean[static_cast<std::size_t>(k)] += r.at(k, y, xx) / static_cast<float>(H * W);
      }
    }
  }
  const Tensor& y1 = engine->output(0);
  ASSERT_EQ(y1.shape(), (Shape{1, 10, 64}));
  for (std::int64_t k = 0; k < 10; ++k) {
    double sum = 0;
    for (std::int64_t p = 0; p < 64; ++p)
      sum += std::exp(r.v[static_cast<std::size_t>(k * 64 + p)]);
    for (std::int64_t p = 0; p < 64; ++p) {
      const double expected = std::exp(r.v[static_cast<std::size_t>(k * 64 + p)]) / sum;
      EXPECT_NEAR(y1.data_as<float>()[k * 64 + p], expected, 1e-5)
          << "channel " << k << " pixel " << p;
    }
  }
  const Tensor& y2 = engine->output(1);
  ASSERT_EQ(y2.shape(), (Shape{1, 10}));
  for (std::int64_t k = 0; k < 10; ++k) {
    EXPECT_NEAR(y2.data_as<float>()[k], mean[static_cast<std::size_t>(k)], 1e-5) << k;
  }
}

TEST(OpsNhwc, PoolingVariantsMatchNaive) {
  struct Case {
    std::string op;
    std::int64_t k, s, pad;
    bool ceil, include_pad;
  };
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> dist(-1.0F, 1.0F);
  const std::int64_t c = 5, h = 7, w = 9;
  std::vector<float> input(static_cast<std::size_t>(c * h * w));
  for (auto& v : input) v = dist(rng);
  for (const auto& t : std::vector<Case>{{"MaxPool", 3, 2, 1, false, false},
                                         {"MaxPool", 2, 2, 0, true, false},
                                         {"MaxPool", 5, 1, 2, false, false},
                                         {"AveragePool", 3, 2, 1, false, false},
                                         {"AveragePool", 3, 2, 1, false, true},
                                         {"AveragePool", 2, 2, 0, true, false}}) {
    const std::string what = t.op + " k" + std::to_string(t.k) + " s" + std::to_string(t.s) +
                             (t.ceil ? " ceil" : "") + (t.include_pad ? " include_pad" : "");
    ModelBuilder b(13);
    b.input("x", {1, c, h, w}).output("y");
    auto& n = b.node(t.op, {"x"}, {"y"});
    ModelBuilder::attr(n, "kernel_shape", std::vector<std::int64_t>{t.k, t.k});
    ModelBuilder::attr(n, "strides", std::vector<std::int64_t>{t.s, t.s});
    ModelBuilder::attr(n, "pads", std::vector<std::int64_t>{t.pad, t.pad, t.pad, t.pad});
    if (t.ceil) ModelBuilder::attr(n, "ceil_mode", std::int64_t{1});
    if (t.include_pad) ModelBuilder::attr(n, "count_include_pad", std::int64_t{1});
    auto engine = Engine::load(b.save("pool.onnx"), EngineOptions{});
    auto* dst = static_cast<float*>(engine->input_data());
    for (std::int64_t k = 0; k < c; ++k)
      for (std::int64_t p = 0; p < h * w; ++p)
        dst[p * c + k] = input[static_cast<std::size_t>(k * h * w + p)];
    engine->run();
    auto out_size = [&](std::int64_t in) {
      const std::int64_t span = in + 2 * t.pad - t.k;
      return (t.ceil ? (span + t.s - 1) / t.s : span / t.s) + 1;
    };
    const std::int64_t oh = out_size(h), ow = out_size(w);
    const Tensor& out = engine->output(0);
    ASSERT_EQ(out.shape(), (Shape{1, c, oh, ow})) << what;
    for (std::int64_t k = 0; k < c; ++k) {
      for (std::int64_t y = 0; y < oh; ++y) {
        for (std::int64_t x = 0; x < ow; ++x) {
          float best = -INFINITY;
          double sum = 0;
          int n_in = 0, n_window = 0;
          for (std::int64_t ky = 0; ky < t.k; ++ky) {
            for (std::int64_t kx = 0; kx < t.k; ++kx) {
              const std::int64_t iy = y * t.s - t.pad + ky, ix = x * t.s - t.pad + kx;
              // Windows reaching past the padded input (ceil mode) do not count those cells.
              if (iy < h + t.pad && ix < w + t.pad) ++n_window;
              if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
              const float v = input[static_cast<std::size_t>((k * h + iy) * w + ix)];
              best = std::max(best, v);
              sum += v;
              ++n_in;
            }
          }
          const double expected =
              t.op == "MaxPool" ? best : sum / (t.include_pad ? n_window : n_in);
          EXPECT_NEAR(out.data_as<float>()[(k * oh + y) * ow + x], expected, 1e-5)
              << what << " at " << k << "," << y << "," << x;
        }
      }
    }
  }
}

}  // namespace
}  // namespace yolo::runtime
