// SPDX-License-Identifier: Apache-2.0
// The graph IR's load-time checks: cycles, undefined inputs, initializer sizes, dtypes, and the
// registry's unsupported-op message.
#include "runtime/engine/graph.h"

#include <gtest/gtest.h>

#include "runtime/engine/graph_passes.h"
#include "runtime/model/model_error.h"
#include "tests/runtime/mentions.h"
#include "tests/runtime/test_model_builder.h"

namespace yolo::runtime {
namespace {

using test::mentions;
using test::ModelBuilder;

std::string load_error(const ModelBuilder& b) {
  try {
    Graph g = Graph::from_onnx(const_cast<ModelBuilder&>(b).proto(), "m.onnx");
    infer_and_fold(g);
  } catch (const ModelError& e) {
    return e.what();
  }
  return "";
}

TEST(Graph, BuildsValuesNodesAndTopologicalOrder) {
  ModelBuilder b;
  b.input("x", {1, 2, 4, 4}).output("z");
  // Listed out of order: the graph sorts them.
  b.node("Sigmoid", {"y"}, {"z"}, "second");
  b.node("Relu", {"x"}, {"y"}, "first");
  Graph g = Graph::from_onnx(b.proto(), "m.onnx");
  ASSERT_EQ(g.nodes.size(), 2U);
  EXPECT_EQ(g.nodes[0].name, "first");
  EXPECT_EQ(g.nodes[1].name, "second");
  EXPECT_EQ(g.opset, 17);
  ASSERT_EQ(g.inputs.size(), 1U);
  EXPECT_EQ(g.value(g.find_value("y")).producer, 0);
  EXPECT_TRUE(g.value(g.find_value("z")).graph_output);
}

TEST(Graph, CycleIsReportedNamingANode) {
  ModelBuilder b;
  b.input("x", {1, 2}).output("b");
  b.node("Add", {"x", "b"}, {"a"}, "loop_a");
  b.node("Relu", {"a"}, {"b"}, "loop_b");
  const auto message = load_error(b);
  EXPECT_TRUE(mentions(message, {"cycle", "loop_"}));
}

TEST(Graph, MissingInitializerIsNamed) {
  ModelBuilder b;
  b.input("x", {1, 3, 8, 8}).output("y");
  b.node("Conv", {"x", "weights_that_are_missing"}, {"y"}, "conv0");
  const auto message = load_error(b);
  EXPECT_TRUE(mentions(message, {"weights_that_are_missing", "conv0", "m.onnx"}));
}

TEST(Graph, InitializerWhoseBytesDoNotMatchItsDimsIsRejected) {
  ModelBuilder b;
  b.input("x", {2, 3}).output("y");
  b.floats("w", {2, 3}, {1.0F, 2.0F});  // 2 values for 6 elements
  b.node("Add", {"x", "w"}, {"y"});
  const auto message = load_error(b);
  EXPECT_TRUE(mentions(message, {"initializer 'w'", "[2,3]"}));
}

TEST(Graph, AbsurdDimsGiveAModelErrorNotBadAlloc) {
  ModelBuilder b;
  b.input("x", {2, 3}).output("y");
  auto* t = b.proto().mutable_graph()->add_initializer();
  t->set_name("huge");
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(1LL << 40);
  t->add_dims(1LL << 20);
  b.node("Add", {"x", "huge"}, {"y"});
  const auto message = load_error(b);
  EXPECT_TRUE(mentions(message, {"exceeds"}));
}

TEST(Graph, UnsupportedDtypeIsNamed) {
  ModelBuilder b;
  b.input("x", {2, 3}, onnx::TensorProto::FLOAT16).output("y");
  b.node("Relu", {"x"}, {"y"});
  const auto message = load_error(b);
  EXPECT_TRUE(mentions(message, {"FLOAT16"}));
}

TEST(Graph, UnsupportedOpNamesOpNodeAndOpset) {
  ModelBuilder b(13);
  b.input("x", {1, 4}).output("y");
  b.node("Hardmax", {"x"}, {"y"}, "the_node");
  const auto message = load_error(b);
  EXPECT_TRUE(mentions(message, {"'Hardmax'", "the_node", "opset 13"}));
}

TEST(Graph, UnsupportedAttributeValueIsNamed) {
  ModelBuilder b(13);
  b.input("x", {1, 2, 4, 4}).output("y");
  b.floats("scales", {4}, {1, 1, 2, 2});
  auto& n = b.node("Resize", {"x", "", "scales"}, {"y"}, "up");
  ModelBuilder::attr(n, "mode", std::string("cubic"));
  const auto message = load_error(b);
  EXPECT_TRUE(mentions(message, {"cubic", "'up'"}));
}

TEST(Graph, RemoveUnusedDropsDeadChains) {
  ModelBuilder b;
  b.input("x", {1, 4}).output("y");
  b.node("Relu", {"x"}, {"y"});
  b.node("Sigmoid", {"x"}, {"dead1"});
  b.node("Exp", {"dead1"}, {"dead2"});
  Graph g = Graph::from_onnx(b.proto(), "m.onnx");
  g.remove_unused();
  ASSERT_EQ(g.nodes.size(), 1U);
  EXPECT_EQ(g.nodes[0].op_type, "Relu");
}

}  // namespace
}  // namespace yolo::runtime
