// SPDX-License-Identifier: Apache-2.0
// The small ops through the engine, checked against values worked out by hand or by a loop: how
// each op reads its attributes or constant inputs for the opset, and that 4-D inputs (stored
// NHWC) reach row-major ops converted.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "runtime/engine/engine.h"
#include "tests/runtime/test_model_builder.h"

namespace yolo::runtime {
namespace {

using test::ModelBuilder;

// Runs a model whose single input is x (values 0..n-1 scaled by `scale`, given in NCHW order).
std::unique_ptr<Engine> run(ModelBuilder& b, const std::string& file, const Shape& shape,
                            float scale = 1.0F, float offset = 0.0F) {
  auto engine = Engine::load(b.save(file), EngineOptions{});
  auto* dst = static_cast<float*>(engine->input_data());
  const std::int64_t n = element_count(shape);
  const bool nhwc = shape.size() == 4 && engine->input_layout() == InputLayout::kNhwcFloat;
  const std::int64_t c = shape.size() == 4 ? shape[1] : 1, hw = n / c;
  for (std::int64_t i = 0; i < n; ++i) {
    const float v = static_cast<float>(i) * scale + offset;
    dst[nhwc ? (i % hw) * c + i / hw : i] = v;
  }
  engine->run();
  return engine;
}

std::vector<float> values(const Tensor& t) {
  return {t.data_as<float>(), t.data_as<float>() + t.size()};
}

TEST(OpsSmall, ShapeOpsReadAxesFromInputsAtOpset13) {
  ModelBuilder b(13);
  b.input("x", {1, 2, 1, 3}).output("sq").output("un").output("fl").output("ex");
  b.ints("axes", {1}, {2}).ints("axes0", {1}, {0}).ints("shape", {3}, {2, 2, 3});
  b.node("Squeeze", {"x", "axes"}, {"sq"});
  b.node("Unsqueeze", {"sq", "axes0"}, {"un"});
  ModelBuilder::attr(b.node("Flatten", {"x"}, {"fl"}), "axis", std::int64_t{2});
  b.node("Sqrt", {"sq"}, {"r"});
  b.node("Expand", {"r", "shape"}, {"ex"});
  auto e = run(b, "shape_ops.onnx", {1, 2, 1, 3});
  EXPECT_EQ(e->output(0).shape(), (Shape{1, 2, 3}));
  EXPECT_EQ(values(e->output(0)), (std::vector<float>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(e->output(1).shape(), (Shape{1, 1, 2, 3}));
  EXPECT_EQ(e->output(2).shape(), (Shape{2, 3}));
  EXPECT_EQ(e->output(3).shape(), (Shape{2, 2, 3}));
  EXPECT_FLOAT_EQ(e->output(3).data_as<float>()[6 + 4], 2.0F);
}

TEST(OpsSmall, ActivationsAndArithmetic) {
  ModelBuilder b(13);
  b.input("x", {1, 2, 2, 2})
      .output("hs")
      .output("hsw")
      .output("lr")
      .output("cl")
      .output("pw")
      .output("mn")
      .output("mx");
  b.floats("lo", {}, {-0.5F}).floats("hi", {}, {0.5F}).floats("two", {}, {2.0F});
  b.floats("half", {1, 2, 1, 1}, {0.0F, 0.5F});
  auto& hs = b.node("HardSigmoid", {"x"}, {"hs"});
  ModelBuilder::attr(hs, "alpha", 0.25F);
  b.node("HardSwish", {"x"}, {"hsw"});
  ModelBuilder::attr(b.node("LeakyRelu", {"x"}, {"lr"}), "alpha", 0.1F);
  b.node("Clip", {"x", "lo", "hi"}, {"cl"});
  b.node("Pow", {"x", "two"}, {"pw"});
  b.node("Min", {"x", "half", "hi"}, {"mn"});
  b.node("Max", {"x", "half"}, {"mx"});
  // x = -2 .. 1.5 in steps of 0.5 (NCHW order).
  auto e = run(b, "activations.onnx", {1, 2, 2, 2}, 0.5F, -2.0F);
  for (int i = 0; i < 8; ++i) {
    const float x = -2.0F + 0.5F * static_cast<float>(i);
    const float channel_half = i < 4 ? 0.0F : 0.5F;
    EXPECT_FLOAT_EQ(e->output(0).data_as<float>()[i], std::clamp(0.25F * x + 0.5F, 0.0F, 1.0F));
    EXPECT_FLOAT_EQ(e->output(1).data_as<float>()[i], x * std::clamp(x + 3.0F, 0.0F, 6.0F) / 6);
    EXPECT_FLOAT_EQ(e->output(2).data_as<float>()[i], x >= 0 ? x : 0.1F * x);
    EXPECT_FLOAT_EQ(e->output(3).data_as<float>()[i], std::clamp(x, -0.5F, 0.5F));
    EXPECT_FLOAT_EQ(e->output(4).data_as<float>()[i], x * x);
    EXPECT_FLOAT_EQ(e->output(5).data_as<float>()[i], std::min({x, channel_half, 0.5F}));
    EXPECT_FLOAT_EQ(e->output(6).data_as<float>()[i], std::max(x, channel_half));
  }
}

TEST(OpsSmall, ComparisonsWhereReductionsArgMax) {
  ModelBuilder b(13);
  // The engine takes an image-like 4-D input; a Reshape makes the [2, 3] matrix.
  b.input("image", {1, 1, 2, 3}).output("w").output("rs").output("rm").output("am");
  b.ints("matrix", {2}, {2, 3});
  b.node("Reshape", {"image", "matrix"}, {"x"});
  b.floats("two", {}, {2.0F}).floats("zero", {}, {0.0F}).ints("axes", {1}, {1});
  b.node("Less", {"x", "two"}, {"lt"});
  b.node("Equal", {"x", "two"}, {"eq"});
  b.node("Where", {"lt", "x", "zero"}, {"w1"});
  b.node("Where", {"eq", "two", "w1"}, {"w"});
  ModelBuilder::attr(b.node("ReduceSum", {"x", "axes"}, {"rs"}), "keepdims", std::int64_t{0});
  auto& rm = b.node("ReduceMax", {"x"}, {"rm"});
  ModelBuilder::attr(rm, "axes", std::vector<std::int64_t>{0});
  auto& am = b.node("ArgMax", {"x"}, {"ami"});
  ModelBuilder::attr(am, "axis", std::int64_t{1});
  ModelBuilder::attr(b.node("Cast", {"ami"}, {"am"}), "to", std::int64_t{onnx::TensorProto::FLOAT});
  auto e = run(b, "compare.onnx", {1, 1, 2, 3});  // x = 0..5
  EXPECT_EQ(values(e->output(0)), (std::vector<float>{0, 1, 2, 0, 0, 0}));
  EXPECT_EQ(values(e->output(1)), (std::vector<float>{3, 12}));
  EXPECT_EQ(e->output(2).shape(), (Shape{1, 3}));
  EXPECT_EQ(values(e->output(2)), (std::vector<float>{3, 4, 5}));
  EXPECT_EQ(values(e->output(3)), (std::vector<float>{2, 2}));
}

TEST(OpsSmall, GatherTopKTileModAndPad) {
  ModelBuilder b(13);
  b.input("image", {1, 1, 1, 6})
      .output("g")
      .output("tv")
      .output("ti")
      .output("ge")
      .output("tl")
      .output("md")
      .output("pd");
  b.ints("row", {2}, {1, 6});
  b.node("Reshape", {"image", "row"}, {"x"});
  b.ints("idx", {2}, {4, -1}).ints("k", {1}, {3}).ints("rep", {2}, {2, 1});
  b.ints("eidx", {1, 2}, {5, 0}).ints("pads", {4}, {0, 1, 0, 2});
  b.floats("four", {}, {4.0F});
  ModelBuilder::attr(b.node("Gather", {"x", "idx"}, {"g"}), "axis", std::int64_t{1});
  b.node("Neg", {"x"}, {"nx"});
  b.node("TopK", {"nx", "k"}, {"tv", "tii"});
  ModelBuilder::attr(b.node("Cast", {"tii"}, {"ti"}), "to", std::int64_t{onnx::TensorProto::FLOAT});
  ModelBuilder::attr(b.node("GatherElements", {"x", "eidx"}, {"ge"}), "axis", std::int64_t{1});
  b.node("Tile", {"x", "rep"}, {"tl"});
  ModelBuilder::attr(b.node("Mod", {"x", "four"}, {"md"}), "fmod", std::int64_t{1});
  b.node("Pad", {"x", "pads"}, {"pd"});
  auto e = run(b, "gather.onnx", {1, 1, 1, 6});  // x = 0..5
  EXPECT_EQ(values(e->output(0)), (std::vector<float>{4, 5}));
  EXPECT_EQ(values(e->output(1)), (std::vector<float>{0, -1, -2}));
  EXPECT_EQ(values(e->output(2)), (std::vector<float>{0, 1, 2}));
  EXPECT_EQ(values(e->output(3)), (std::vector<float>{5, 0}));
  EXPECT_EQ(e->output(4).shape(), (Shape{2, 6}));
  EXPECT_EQ(values(e->output(5)), (std::vector<float>{0, 1, 2, 3, 0, 1}));
  EXPECT_EQ(values(e->output(6)), (std::vector<float>{0, 0, 1, 2, 3, 4, 5, 0, 0}));
}

TEST(OpsSmall, TransposeMatMulSoftmaxOnFourDimensionalInput) {
  // The 4-D input is stored NHWC; these row-major ops must see it converted.
  ModelBuilder b(13);
  b.input("x", {1, 2, 3, 4}).output("mm").output("sm");
  auto& t = b.node("Transpose", {"x"}, {"xt"});
  ModelBuilder::attr(t, "perm", std::vector<std::int64_t>{0, 1, 3, 2});
  b.node("MatMul", {"x", "xt"}, {"mm"});
  ModelBuilder::attr(b.node("Softmax", {"x"}, {"sm"}), "axis", std::int64_t{1});
  auto e = run(b, "attention.onnx", {1, 2, 3, 4}, 0.1F);
  const Tensor& mm = e->output(0);
  ASSERT_EQ(mm.shape(), (Shape{1, 2, 3, 3}));
  for (int c = 0; c < 2; ++c)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        float sum = 0;
        for (int k = 0; k < 4; ++k) {
          sum += 0.1F * static_cast<float>(c * 12 + i * 4 + k) * 0.1F *
                 static_cast<float>(c * 12 + j * 4 + k);
        }
        EXPECT_NEAR(mm.data_as<float>()[(c * 3 + i) * 3 + j], sum, 1e-4);
      }
  const Tensor& sm = e->output(1);
  for (int p = 0; p < 12; ++p) {
    const float a = 0.1F * static_cast<float>(p), b2 = 0.1F * static_cast<float>(12 + p);
    EXPECT_NEAR(sm.data_as<float>()[p], std::exp(a) / (std::exp(a) + std::exp(b2)), 1e-6);
  }
}

}  // namespace
}  // namespace yolo::runtime
