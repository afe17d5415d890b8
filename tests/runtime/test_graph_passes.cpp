// SPDX-License-Identifier: Apache-2.0
// Constant folding with shape inference, dynamic-INT8 chain folding, and activation fusion.
#include "runtime/graph_passes.h"

#include <gtest/gtest.h>

#include "runtime/graph.h"
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

TEST(GraphPasses, FusesConvSigmoidMulIntoConvSilu) {
  ModelBuilder b(13);
  b.input("x", {1, 3, 8, 8}).output("y");
  b.random("w", {4, 3, 1, 1}, 2);
  b.node("Conv", {"x", "w"}, {"c"});
  b.node("Sigmoid", {"c"}, {"s"});
  b.node("Mul", {"c", "s"}, {"y"});
  Graph g = Graph::from_onnx(b.proto(), "m.onnx");
  infer_and_fold(g);
  const auto stats = fuse_activations(g);
  EXPECT_EQ(stats.silu, 1);
  EXPECT_EQ(stats.conv_silu, 1);
  ASSERT_EQ(g.nodes.size(), 1U);
  EXPECT_EQ(g.nodes[0].op_type, "Conv");
  EXPECT_EQ(g.nodes[0].attr_string("yolo_activation", ""), "silu");
  EXPECT_EQ(g.nodes[0].outputs[0], g.find_value("y"));
}

TEST(GraphPasses, SiluStaysSeparateWhenTheConvOutputHasOtherReaders) {
  ModelBuilder b(13);
  b.input("x", {1, 3, 8, 8}).output("y").output("c");
  b.random("w", {4, 3, 1, 1}, 3);
  b.node("Conv", {"x", "w"}, {"c"});
  b.node("Sigmoid", {"c"}, {"s"});
  b.node("Mul", {"s", "c"}, {"y"});
  Graph g = Graph::from_onnx(b.proto(), "m.onnx");
  infer_and_fold(g);
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

TEST(GraphPasses, FoldsADynamicInt8ConvChainIntoAnFp32Conv) {
  ModelBuilder b(13);
  b.input("x", {1, 2, 4, 4}).output("y");
  // int8 weights [3,2,1,1] with a per-channel scale and zero point 0.
  auto* w = b.proto().mutable_graph()->add_initializer();
  w->set_name("wq");
  w->set_data_type(onnx::TensorProto::INT8);
  for (auto d : {3, 2, 1, 1}) w->add_dims(d);
  w->set_raw_data(std::string("\x01\x02\xff\x04\x05\xfa", 6));
  b.floats("wscale", {3, 1, 1}, {0.5F, 0.25F, 2.0F});
  auto* zp = b.proto().mutable_graph()->add_initializer();
  zp->set_name("wzp");
  zp->set_data_type(onnx::TensorProto::INT8);
  zp->add_dims(1);
  zp->set_raw_data(std::string(1, '\0'));
  b.floats("bias", {3, 1, 1}, {0.1F, 0.2F, 0.3F});
  b.node("DynamicQuantizeLinear", {"x"}, {"xq", "xs", "xz"});
  b.node("Mul", {"xs", "wscale"}, {"scale"});
  b.node("ConvInteger", {"xq", "wq", "xz", "wzp"}, {"acc"});
  ModelBuilder::attr(b.node("Cast", {"acc"}, {"accf"}), "to",
                     std::int64_t{onnx::TensorProto::FLOAT});
  b.node("Mul", {"accf", "scale"}, {"scaled"});
  b.node("Add", {"scaled", "bias"}, {"y"});
  Graph g = Graph::from_onnx(b.proto(), "m.onnx");
  infer_and_fold(g);
  const auto stats = fold_dynamic_int8(g);
  EXPECT_EQ(stats.conv, 1);
  ASSERT_EQ(g.nodes.size(), 1U);
  const Node& conv = g.nodes[0];
  EXPECT_EQ(conv.op_type, "Conv");
  EXPECT_EQ(conv.inputs[0], g.find_value("x"));
  const auto& weights = *g.value(conv.inputs[1]).constant;
  const std::vector<float> expected{0.5F, 1.0F, -0.25F, 1.0F, 10.0F, -12.0F};
  EXPECT_EQ(std::vector<float>(weights.data_as<float>(), weights.data_as<float>() + 6), expected);
  ASSERT_EQ(conv.inputs.size(), 3U);
  EXPECT_EQ(conv.outputs[0], g.find_value("y"));
}

TEST(GraphPasses, FoldsADynamicInt8MatMulChainIntoAnFp32MatMul) {
  ModelBuilder b(13);
  b.input("x", {1, 5, 2}).output("y");
  // uint8 weights [K=2, N=3] with per-column scale and zero point.
  auto* w = b.proto().mutable_graph()->add_initializer();
  w->set_name("wq");
  w->set_data_type(onnx::TensorProto::UINT8);
  w->add_dims(2);
  w->add_dims(3);
  w->set_raw_data(std::string("\x80\x81\x7f\x90\x00\xff", 6));
  b.floats("wscale", {3}, {0.5F, 0.25F, 2.0F});
  auto* zp = b.proto().mutable_graph()->add_initializer();
  zp->set_name("wzp");
  zp->set_data_type(onnx::TensorProto::UINT8);
  zp->add_dims(3);
  zp->set_raw_data(std::string("\x80\x80\x7f", 3));
  b.node("DynamicQuantizeLinear", {"x"}, {"xq", "xs", "xz"});
  b.node("Mul", {"xs", "wscale"}, {"scale"});
  b.node("MatMulInteger", {"xq", "wq", "xz", "wzp"}, {"acc"});
  ModelBuilder::attr(b.node("Cast", {"acc"}, {"accf"}), "to",
                     std::int64_t{onnx::TensorProto::FLOAT});
  b.node("Mul", {"accf", "scale"}, {"y"});
  Graph g = Graph::from_onnx(b.proto(), "m.onnx");
  infer_and_fold(g);
  const auto stats = fold_dynamic_int8(g);
  EXPECT_EQ(stats.matmul, 1);
  ASSERT_EQ(g.nodes.size(), 1U);
  const Node& matmul = g.nodes[0];
  EXPECT_EQ(matmul.op_type, "MatMul");
  const auto& weights = *g.value(matmul.inputs[1]).constant;
  // (q - zp[n]) * scale[n], row-major [2, 3].
  const std::vector<float> expected{0.0F, 0.25F, 0.0F, 8.0F, -32.0F, 256.0F};
  EXPECT_EQ(std::vector<float>(weights.data_as<float>(), weights.data_as<float>() + 6), expected);
  EXPECT_EQ(matmul.outputs[0], g.find_value("y"));
}

}  // namespace
}  // namespace yolo::runtime
