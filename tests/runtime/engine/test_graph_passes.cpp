// SPDX-License-Identifier: Apache-2.0
// Constant folding with shape inference, dynamic-INT8 chain folding, and activation fusion.
#include "runtime/engine/graph_passes.h"

#include <gtest/gtest.h>

#include "runtime/engine/graph.h"
#include "tests/runtime/test_model_builder.h"

namespace yolo::runtime {
namespace {

using test::ModelBuilder;

int count_ops(const Graph& g, const std::string& op) {
  int n = 0;
  for (const auto& node : g.nodes) n += node.op_type == op;
  return n;
}

const Value& value(const Graph& g, const std::string& name) {
  return g.value(g.find_value(name));
}

TEST(GraphPasses, FoldsShapeArithmeticIntoAConstantReshapeTarget) {
  // YOLO heads compute reshape targets as Shape -> Gather -> Unsqueeze -> Concat.
  ModelBuilder b(13);
  b.input("x", {1, 8, 4, 5}).output("y");
  b.ints("idx0", {}, {0}).ints("idx1", {}, {1}).ints("axes", {1}, {0}).ints("minus1", {1}, {-1});
  b.node("Shape", {"x"}, {"shape"});
  ModelBuilder::attr(b.node("Gather", {"shape", "idx0"}, {"n"}), "axis", std::int64_t{0});
  ModelBuilder::attr(b.node("Gather", {"shape", "idx1"}, {"c"}), "axis", std::int64_t{0});
  b.node("Unsqueeze", {"n", "axes"}, {"n1"});
  b.node("Unsqueeze", {"c", "axes"}, {"c1"});
  ModelBuilder::attr(b.node("Concat", {"n1", "c1", "minus1"}, {"target"}), "axis", std::int64_t{0});
  b.node("Reshape", {"x", "target"}, {"y"});
  Graph g = Graph::from_onnx(b.proto(), "m.onnx");
  const int folded = infer_and_fold(g);
  EXPECT_EQ(folded, 6);
  ASSERT_EQ(g.nodes.size(), 1U);
  EXPECT_EQ(g.nodes[0].op_type, "Reshape");
  const auto& target = value(g, "target");
  ASSERT_TRUE(target.constant);
  EXPECT_EQ(std::vector<std::int64_t>(target.constant->data_as<std::int64_t>(),
                                      target.constant->data_as<std::int64_t>() + 3),
            (std::vector<std::int64_t>{1, 8, -1}));
  EXPECT_EQ(value(g, "y").shape, (Shape{1, 8, 20}));
}

TEST(GraphPasses, InfersShapesThroughConvPoolResizeConcat) {
  ModelBuilder b(13);
  b.input("x", {1, 3, 15, 17}).output("y");
  b.random("w", {6, 3, 3, 3}, 1);
  auto& conv = b.node("Conv", {"x", "w"}, {"c"});
  ModelBuilder::attr(conv, "strides", std::vector<std::int64_t>{2, 2});
  ModelBuilder::attr(conv, "pads", std::vector<std::int64_t>{1, 1, 1, 1});
  auto& pool = b.node("MaxPool", {"c"}, {"p"});
  ModelBuilder::attr(pool, "kernel_shape", std::vector<std::int64_t>{2, 2});
  ModelBuilder::attr(pool, "strides", std::vector<std::int64_t>{2, 2});
  ModelBuilder::attr(pool, "ceil_mode", std::int64_t{1});
  b.floats("scales", {4}, {1, 1, 2, 2});
  ModelBuilder::attr(b.node("Resize", {"p", "", "scales"}, {"u"}), "mode", std::string("nearest"));
  ModelBuilder::attr(b.node("Concat", {"u", "u"}, {"y"}), "axis", std::int64_t{1});
  Graph g = Graph::from_onnx(b.proto(), "m.onnx");
  infer_and_fold(g);
  EXPECT_EQ(value(g, "c").shape, (Shape{1, 6, 8, 9}));
  EXPECT_EQ(value(g, "p").shape, (Shape{1, 6, 4, 5}));
  EXPECT_EQ(value(g, "u").shape, (Shape{1, 6, 8, 10}));
  EXPECT_EQ(value(g, "y").shape, (Shape{1, 12, 8, 10}));
}

// Conv -> Sigmoid -> Mul as YOLO writes its SiLU, the Mul's inputs in the order given; the conv's
// output "c" is also a model output when `conv_is_output`.
Graph conv_silu(std::vector<std::string> mul_inputs, bool conv_is_output) {
  ModelBuilder b(13);
  b.input("x", {1, 3, 8, 8}).output("y");
  if (conv_is_output) b.output("c");
  b.random("w", {4, 3, 1, 1}, 2);
  b.node("Conv", {"x", "w"}, {"c"});
  b.node("Sigmoid", {"c"}, {"s"});
  b.node("Mul", mul_inputs, {"y"});
  Graph g = Graph::from_onnx(b.proto(), "m.onnx");
  infer_and_fold(g);
  return g;
}

TEST(GraphPasses, FusesConvSigmoidMulIntoConvSilu) {
  Graph g = conv_silu({"c", "s"}, false);
  const auto stats = fuse_activations(g);
  EXPECT_EQ(stats.silu, 1);
  EXPECT_EQ(stats.conv_silu, 1);
  ASSERT_EQ(g.nodes.size(), 1U);
  EXPECT_EQ(g.nodes[0].op_type, "Conv");
  EXPECT_EQ(g.nodes[0].attr_string("yolo_activation", ""), "silu");
  EXPECT_EQ(g.nodes[0].outputs[0], g.find_value("y"));
}

TEST(GraphPasses, SiluStaysSeparateWhenTheConvOutputHasOtherReaders) {
  Graph g = conv_silu({"s", "c"}, true);
  const auto stats = fuse_activations(g);
  EXPECT_EQ(stats.silu, 1);
  EXPECT_EQ(stats.conv_silu, 0);
  EXPECT_EQ(count_ops(g, "SiLU"), 1);
}

TEST(GraphPasses, FusesReluAndClipIntoTheConvClamp) {
  ModelBuilder b(13);
  b.input("x", {1, 3, 8, 8}).output("y").output("z");
  b.random("w", {4, 3, 1, 1}, 4).random("w2", {4, 3, 1, 1}, 5);
  b.floats("lo", {}, {0.0F}).floats("hi", {}, {6.0F});
  b.node("Conv", {"x", "w"}, {"c"});
  b.node("Relu", {"c"}, {"y"});
  b.node("Conv", {"x", "w2"}, {"c2"});
  b.node("Clip", {"c2", "lo", "hi"}, {"z"});
  Graph g = Graph::from_onnx(b.proto(), "m.onnx");
  infer_and_fold(g);
  const auto stats = fuse_activations(g);
  EXPECT_EQ(stats.conv_clamp, 2);
  ASSERT_EQ(g.nodes.size(), 2U);
  EXPECT_FLOAT_EQ(g.nodes[1].attr_float("yolo_max", 0.0F), 6.0F);
}

}  // namespace
}  // namespace yolo::runtime
