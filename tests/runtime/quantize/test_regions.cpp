// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/regions.h"

#include <gtest/gtest.h>

#include "tests/runtime/quantize/quantizer_models.h"

namespace yolo::runtime {
namespace {

using namespace quantize_test;

TEST(FindRegions, TheTailFollowsTheLastConvOfEachBranch) {
  ModelBuilder b;
  b.input("x", {1, 3, 8, 8});
  b.random("w1", {4, 3, 1, 1}, 1).random("wb", {16, 4, 1, 1}, 2).random("wc", {2, 4, 1, 1}, 3);
  b.random("dfl", {1, 16, 1, 1}, 4);
  b.node("Conv", {"x", "w1"}, {"f"}, "stem");
  b.node("Conv", {"f", "wb"}, {"box"}, "box_conv");
  b.node("Conv", {"f", "wc"}, {"cls"}, "cls_conv");
  b.node("Softmax", {"box"}, {"p"}, "dfl_softmax");
  b.node("Conv", {"p", "dfl"}, {"dist"}, "dfl_conv");
  b.node("Sigmoid", {"cls"}, {"score"}, "score");
  auto& cat = b.node("Concat", {"dist", "score"}, {"out"}, "out_concat");
  ModelBuilder::attr(cat, "axis", std::int64_t{1});
  b.output("out");
  const GraphRegions r = find_regions(b.proto().graph());
  EXPECT_EQ(r.tail, (std::set<std::string>{"dfl_softmax", "dfl_conv", "score", "out_concat"}));
  EXPECT_EQ(r.final_convs, (std::vector<std::string>{"box_conv", "cls_conv"}));
  // The DFL conv is not quantized even with nothing kept: it reads a Softmax, so its input is
  // not quantized (its output is, for the concat that reads it).
  const auto t = quantized_tensors(b.proto().graph(), {});
  EXPECT_EQ(std::count(t.begin(), t.end(), "p"), 0);
  EXPECT_EQ(std::count(t.begin(), t.end(), "dist"), 1);
}

// An attention block as YOLO11 and YOLO26 write it: one conv projects q, k and v, reshaped and
// split on their way to the MatMuls; a conv reading the attention's result is not one of them.
TEST(FindRegions, AttentionConvsReachAMatMulThroughReshapesAndSplits) {
  ModelBuilder b;
  b.input("x", {1, 4, 2, 2});
  b.random("wqkv", {12, 4, 1, 1}, 1).random("wo", {4, 4, 1, 1}, 2);
  b.ints("shape", {3}, {1, 12, 4}).ints("parts", {3}, {4, 4, 4});
  b.ints("back", {4}, {1, 4, 2, 2});
  b.node("Conv", {"x", "wqkv"}, {"qkv"}, "qkv_conv");
  b.node("Reshape", {"qkv", "shape"}, {"r"}, "reshape");
  auto& split = b.node("Split", {"r", "parts"}, {"q", "k", "v"}, "split");
  ModelBuilder::attr(split, "axis", std::int64_t{1});
  auto& kt = b.node("Transpose", {"k"}, {"kt"}, "k_t");
  ModelBuilder::attr(kt, "perm", std::vector<std::int64_t>{0, 2, 1});
  b.node("MatMul", {"kt", "q"}, {"attn"}, "qk");
  b.node("Softmax", {"attn"}, {"p"}, "softmax");
  b.node("MatMul", {"v", "p"}, {"y"}, "pv");
  b.node("Reshape", {"y", "back"}, {"y4"}, "unflatten");
  b.node("Conv", {"y4", "wo"}, {"out"}, "proj_conv");
  b.output("out");
  EXPECT_EQ(find_regions(b.proto().graph()).attention_convs, (std::set<std::string>{"qkv_conv"}));
}

}  // namespace
}  // namespace yolo::runtime
