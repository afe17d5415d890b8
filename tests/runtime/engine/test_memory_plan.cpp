// SPDX-License-Identifier: Apache-2.0
// Layout and arena planning: NHWC for activations with conversions only where needed, channel
// Concat/Split without copies, and memory shared between tensors whose lifetimes do not overlap.
#include "runtime/engine/memory_plan.h"

#include <gtest/gtest.h>

#include "runtime/engine/graph_passes.h"
#include "tests/runtime/test_model_builder.h"

namespace yolo::runtime {
namespace {

using test::ModelBuilder;

Graph planned(ModelBuilder& b, MemoryPlan& plan) {
  Graph g = Graph::from_onnx(b.proto(), "m.onnx");
  infer_and_fold(g);
  fuse_activations(g);
  plan = plan_memory(g, ops::Layout::kNhwc);
  return g;
}

TEST(MemoryPlan, ChainOfConvsSharesTheArena) {
  ModelBuilder b(13);
  b.input("x", {1, 16, 64, 64}).output("y");
  std::string prev = "x";
  for (int i = 0; i < 10; ++i) {
    const std::string index = std::to_string(i);
    const std::string w = std::string("w").append(index);
    const std::string out = i == 9 ? std::string("y") : std::string("c").append(index);
    b.random(w, {16, 16, 3, 3}, static_cast<std::uint32_t>(i));
    ModelBuilder::attr(b.node("Conv", {prev, w}, {out}), "pads",
                       std::vector<std::int64_t>{1, 1, 1, 1});
    prev = out;
  }
  MemoryPlan plan;
  Graph g = planned(b, plan);
  // 11 tensors of 256 KiB; the input lives the whole run, the rest ping-pong in two buffers
  // (the output lives to the end, so three buffers at most).
  const std::int64_t tensor = 16 * 64 * 64 * 4;
  EXPECT_GE(plan.unshared_bytes, 11 * tensor);
  EXPECT_LE(plan.arena_bytes, 4 * tensor);
  // The NCHW output is converted by the engine's final copy, not by a step.
  EXPECT_EQ(plan.layout_conversions, 0);
}

TEST(MemoryPlan, ConvOutputsAreWrittenStraightIntoTheConcat) {
  ModelBuilder b(13);
  b.input("x", {1, 3, 8, 8}).output("y");
  b.random("wa", {5, 3, 1, 1}, 1).random("wb", {7, 3, 3, 3}, 2).random("wc", {4, 12, 1, 1}, 3);
  b.node("Conv", {"x", "wa"}, {"a"});
  ModelBuilder::attr(b.node("Conv", {"x", "wb"}, {"b"}), "pads",
                     std::vector<std::int64_t>{1, 1, 1, 1});
  ModelBuilder::attr(b.node("Concat", {"a", "b"}, {"cat"}), "axis", std::int64_t{1});
  b.node("Conv", {"cat", "wc"}, {"y"});
  MemoryPlan plan;
  Graph g = planned(b, plan);
  EXPECT_EQ(plan.concat_inputs_in_place, 2);
  EXPECT_EQ(plan.concat_inputs_copied, 0);
  const int a = g.find_value("a"), cat = g.find_value("cat");
  EXPECT_EQ(plan.root[static_cast<std::size_t>(a)], cat);
  EXPECT_EQ(plan.element_offset[static_cast<std::size_t>(g.find_value("b"))], 5);
}

TEST(MemoryPlan, SplitPartsFeedingTheConcatCostNothing) {
  // YOLO's C2f: conv -> split in two -> one half through a conv -> concat(all parts).
  ModelBuilder b(13);
  b.input("x", {1, 3, 8, 8}).output("y");
  b.random("w0", {8, 3, 1, 1}, 1).random("w1", {4, 4, 3, 3}, 2).random("w2", {4, 12, 1, 1}, 3);
  b.node("Conv", {"x", "w0"}, {"c0"});
  ModelBuilder::attr(b.node("Split", {"c0"}, {"s0", "s1"}), "axis", std::int64_t{1});
  ModelBuilder::attr(b.node("Conv", {"s1", "w1"}, {"m"}), "pads",
                     std::vector<std::int64_t>{1, 1, 1, 1});
  ModelBuilder::attr(b.node("Concat", {"s0", "s1", "m"}, {"cat"}), "axis", std::int64_t{1});
  b.node("Conv", {"cat", "w2"}, {"y"});
  MemoryPlan plan;
  Graph g = planned(b, plan);
  EXPECT_EQ(plan.concat_inputs_in_place, 3);
  const int cat = g.find_value("cat");
  EXPECT_EQ(plan.root[static_cast<std::size_t>(g.find_value("c0"))], cat);
  EXPECT_EQ(plan.root[static_cast<std::size_t>(g.find_value("s1"))], cat);
  EXPECT_EQ(plan.element_offset[static_cast<std::size_t>(g.find_value("s1"))], 4);
  EXPECT_EQ(plan.element_offset[static_cast<std::size_t>(g.find_value("m"))], 8);
}

TEST(MemoryPlan, NchwOpsGetOneConversionPerValue) {
  ModelBuilder b(13);
  b.input("x", {1, 3, 8, 8}).output("y").output("z");
  b.random("w", {4, 3, 1, 1}, 1);
  b.ints("shape", {3}, {1, 4, 64});
  b.node("Conv", {"x", "w"}, {"c"});
  b.node("Reshape", {"c", "shape"}, {"y"});
  ModelBuilder::attr(b.node("Softmax", {"c"}, {"z"}), "axis", std::int64_t{1});
  MemoryPlan plan;
  Graph g = planned(b, plan);
  EXPECT_EQ(plan.layout_conversions, 1);
  EXPECT_EQ(plan.layout[static_cast<std::size_t>(g.find_value("c"))], ops::Layout::kNhwc);
  EXPECT_EQ(plan.layout[static_cast<std::size_t>(g.find_value("y"))], ops::Layout::kNchw);
}

}  // namespace
}  // namespace yolo::runtime
