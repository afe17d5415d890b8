// SPDX-License-Identifier: Apache-2.0
// Conv (with fused SiLU / Relu) and ConvTranspose through the engine (NHWC, XNNPACK) against naive
// NCHW references over random shapes, padding, strides, dilation and groups, including 1x1
// images, one channel and channel counts that are not multiples of 8.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "runtime/engine/engine.h"
#include "tests/runtime/test_model_builder.h"

namespace yolo::runtime {
namespace {

using test::ModelBuilder;

struct ConvCase {
  std::int64_t cin, cout, h, w, kh, kw, sh, sw, dh, dw, groups;
  std::vector<std::int64_t> pads;  // top, left, bottom, right
  bool bias;
  std::string activation;  // "", "silu", "relu"
};

std::vector<float> random_values(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0F, 1.0F);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

// Writes an NCHW image into the engine's input, whatever layout it asks for.
void set_input(Engine& engine, const std::vector<float>& nchw, std::int64_t c, std::int64_t h,
               std::int64_t w) {
  auto* dst = static_cast<float*>(engine.input_data());
  const bool nhwc = engine.input_layout() == InputLayout::kNhwcFloat;
  for (std::int64_t k = 0; k < c; ++k)
    for (std::int64_t p = 0; p < h * w; ++p)
      dst[nhwc ? p * c + k : k * h * w + p] = nchw[static_cast<std::size_t>(k * h * w + p)];
}

void expect_close(const Tensor& out, const std::vector<float>& expected, const std::string& what) {
  ASSERT_EQ(out.size(), static_cast<std::int64_t>(expected.size())) << what;
  int bad = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const float a = out.data_as<float>()[i], b = expected[i];
    if (!(std::fabs(a - b) <= 1e-4F + 1e-4F * std::fabs(b)) && bad++ < 3) {
      ADD_FAILURE() << what << ": element " << i << " is " << a << ", expected " << b;
    }
  }
}

TEST(OpsConv, MatchesNaiveReference) {
  const std::vector<ConvCase> cases{
      {3, 16, 9, 11, 3, 3, 2, 2, 1, 1, 1, {1, 1, 1, 1}, true, "silu"},
      {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, false, ""},
      {5, 7, 1, 1, 3, 3, 1, 1, 1, 1, 1, {1, 1, 1, 1}, true, "relu"},
      {13, 13, 8, 6, 3, 3, 1, 1, 1, 1, 13, {1, 1, 1, 1}, true, "silu"},  // depthwise
      {6, 12, 7, 7, 5, 5, 2, 1, 1, 1, 6, {2, 2, 2, 2}, true, ""},        // multiplier 2
      {8, 10, 10, 9, 3, 3, 1, 1, 2, 2, 2, {2, 1, 2, 0}, true, "silu"},   // groups, dilation
      {17, 9, 12, 5, 1, 3, 1, 2, 1, 1, 1, {0, 1, 0, 1}, false, ""},
      {32, 24, 20, 20, 1, 1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, true, "silu"},  // plain GEMM
      {4, 3, 6, 6, 2, 2, 2, 2, 1, 1, 1, {0, 0, 1, 1}, true, "relu"},
  };
  std::uint32_t seed = 1;
  for (const auto& c : cases) {
    const std::string what = "conv cin=" + std::to_string(c.cin) +
                             " cout=" + std::to_string(c.cout) + " k=" + std::to_string(c.kh) +
                             "x" + std::to_string(c.kw) + " groups=" + std::to_string(c.groups);
    ModelBuilder b(13);
    b.input("x", {1, c.cin, c.h, c.w}).output("y");
    const auto weights =
        random_values(static_cast<std::size_t>(c.cout * c.cin / c.groups * c.kh * c.kw), seed++);
    const auto bias = random_values(static_cast<std::size_t>(c.cout), seed++);
    b.floats("w", {c.cout, c.cin / c.groups, c.kh, c.kw}, weights);
    std::vector<std::string> inputs{"x", "w"};
    if (c.bias) {
      b.floats("b", {c.cout}, bias);
      inputs.push_back("b");
    }
    const std::string conv_out = c.activation.empty() ? "y" : "c";
    auto& n = b.node("Conv", inputs, {conv_out});
    ModelBuilder::attr(n, "kernel_shape", std::vector<std::int64_t>{c.kh, c.kw});
    ModelBuilder::attr(n, "strides", std::vector<std::int64_t>{c.sh, c.sw});
    ModelBuilder::attr(n, "dilations", std::vector<std::int64_t>{c.dh, c.dw});
    ModelBuilder::attr(n, "pads", c.pads);
    ModelBuilder::attr(n, "group", c.groups);
    if (c.activation == "silu") {
      b.node("Sigmoid", {"c"}, {"s"});
      b.node("Mul", {"c", "s"}, {"y"});
    } else if (c.activation == "relu") {
      b.node("Relu", {"c"}, {"y"});
    }
    auto engine = Engine::load(b.save("conv.onnx"), EngineOptions{});
    const auto input = random_values(static_cast<std::size_t>(c.cin * c.h * c.w), seed++);
    set_input(*engine, input, c.cin, c.h, c.w);
    engine->run();

    const std::int64_t oh = (c.h + c.pads[0] + c.pads[2] - c.dh * (c.kh - 1) - 1) / c.sh + 1;
    const std::int64_t ow = (c.w + c.pads[1] + c.pads[3] - c.dw * (c.kw - 1) - 1) / c.sw + 1;
    ASSERT_EQ(engine->output(0).shape(), (Shape{1, c.cout, oh, ow})) << what;
    std::vector<float> expected(static_cast<std::size_t>(c.cout * oh * ow));
    const std::int64_t cin_g = c.cin / c.groups, cout_g = c.cout / c.groups;
    for (std::int64_t o = 0; o < c.cout; ++o) {
      const std::int64_t g = o / cout_g;
      for (std::int64_t y = 0; y < oh; ++y) {
        for (std::int64_t x = 0; x < ow; ++x) {
          double sum = c.bias ? bias[static_cast<std::size_t>(o)] : 0.0;
          for (std::int64_t i = 0; i < cin_g; ++i) {
            for (std::int64_t ky = 0; ky < c.kh; ++ky) {
              for (std::int64_t kx = 0; kx < c.kw; ++kx) {
                const std::int64_t iy = y * c.sh - c.pads[0] + ky * c.dh;
                const std::int64_t ix = x * c.sw - c.pads[1] + kx * c.dw;
                if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;
                sum += static_cast<double>(weights[static_cast<std::size_t>(
                           ((o * cin_g + i) * c.kh + ky) * c.kw + kx)]) *
                       input[static_cast<std::size_t>(((g * cin_g + i) * c.h + iy) * c.w + ix)];
              }
            }
          }
          if (c.activation == "silu") sum = sum / (1.0 + std::exp(-sum));
          if (c.activation == "relu") sum = std::max(sum, 0.0);
          expected[static_cast<std::size_t>((o * oh + y) * ow + x)] = static_cast<float>(sum);
        }
      }
    }
    expect_close(engine->output(0), expected, what);
  }
}

TEST(OpsConv, ConvTransposeMatchesNaiveReference) {
  struct Case {
    std::int64_t cin, cout, h, w, k, stride, pad, output_padding;
  };
  std::uint32_t seed = 100;
  for (const auto& c : std::vector<Case>{
           {4, 6, 5, 7, 2, 2, 0, 0}, {3, 5, 4, 4, 3, 2, 1, 1}, {1, 1, 1, 1, 3, 1, 0, 0}}) {
    const std::string what = "convtranspose cin=" + std::to_string(c.cin);
    ModelBuilder b(13);
    b.input("x", {1, c.cin, c.h, c.w}).output("y");
    const auto weights =
        random_values(static_cast<std::size_t>(c.cin * c.cout * c.k * c.k), seed++);
    const auto bias = random_values(static_cast<std::size_t>(c.cout), seed++);
    b.floats("w", {c.cin, c.cout, c.k, c.k}, weights).floats("b", {c.cout}, bias);
    auto& n = b.node("ConvTranspose", {"x", "w", "b"}, {"c"});
    ModelBuilder::attr(n, "strides", std::vector<std::int64_t>{c.stride, c.stride});
    ModelBuilder::attr(n, "pads", std::vector<std::int64_t>{c.pad, c.pad, c.pad, c.pad});
    ModelBuilder::attr(n, "output_padding",
                       std::vector<std::int64_t>{c.output_padding, c.output_padding});
    // A following conv keeps the NHWC path in the test.
    b.floats("one", {c.cout, 1, 1, 1}, std::vector<float>(static_cast<std::size_t>(c.cout), 1.0F));
    ModelBuilder::attr(b.node("Conv", {"c", "one"}, {"y"}), "group", c.cout);
    auto engine = Engine::load(b.save("deconv.onnx"), EngineOptions{});
    const auto input = random_values(static_cast<std::size_t>(c.cin * c.h * c.w), seed++);
    set_input(*engine, input, c.cin, c.h, c.w);
    engine->run();
    const std::int64_t oh = c.stride * (c.h - 1) + c.output_padding + c.k - 2 * c.pad;
    const std::int64_t ow = c.stride * (c.w - 1) + c.output_padding + c.k - 2 * c.pad;
    ASSERT_EQ(engine->output(0).shape(), (Shape{1, c.cout, oh, ow})) << what;
    std::vector<double> full(static_cast<std::size_t>(c.cout * oh * ow));
    for (std::int64_t o = 0; o < c.cout; ++o)
      for (std::int64_t p = 0; p < oh * ow; ++p)
        full[static_cast<std::size_t>(o * oh * ow + p)] = bias[static_cast<std::size_t>(o)];
    for (std::int64_t i = 0; i < c.cin; ++i)
      for (std::int64_t y = 0; y < c.h; ++y)
        for (std::int64_t x = 0; x < c.w; ++x)
          for (std::int64_t o = 0; o < c.cout; ++o)
            for (std::int64_t ky = 0; ky < c.k; ++ky)
              for (std::int64_t kx = 0; kx < c.k; ++kx) {
                const std::int64_t oy = y * c.stride + ky - c.pad, ox = x * c.stride + kx - c.pad;
                if (oy < 0 || oy >= oh || ox < 0 || ox >= ow) continue;
                full[static_cast<std::size_t>((o * oh + oy) * ow + ox)] +=
                    static_cast<double>(input[static_cast<std::size_t>((i * c.h + y) * c.w + x)]) *
                    weights[static_cast<std::size_t>(((i * c.cout + o) * c.k + ky) * c.k + kx)];
              }
    expect_close(engine->output(0), std::vector<float>(full.begin(), full.end()), what);
  }
}

}  // namespace
}  // namespace yolo::runtime
