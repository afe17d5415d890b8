// SPDX-License-Identifier: Apache-2.0
#include "runtime/int8/int8_operators.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "runtime/int8/qdq_chain.h"

namespace yolo::runtime {
namespace {

Node node_of(std::string_view op, int inputs) {
  Node node;
  node.op_type = std::string(op);
  for (int i = 0; i < inputs; ++i) node.inputs.push_back(i);
  return node;
}

TEST(Int8Operators, EveryElementwiseOpHasItsChainFunction) {
  const Graph graph;
  for (const auto& [op, spec] : ops::ops_with_int8()) {
    const bool elementwise = spec->int8()->lowering == Int8Lowering::kElementwise;
    const bool chain = is_chain_op(node_of(op, 1)) || is_chain_op(node_of(op, 2));
    EXPECT_EQ(chain, elementwise) << op;
    const bool function =
        spec->binary_function() || spec->unary_function(graph, node_of(op, 1)) != nullptr;
    EXPECT_EQ(function, elementwise) << op;
  }
  EXPECT_FALSE(is_chain_op(node_of("Softmax", 1)));
  EXPECT_FALSE(is_chain_op(node_of("Mul", 1)));
}

TEST(Int8Operators, LookupAndTheQuantizersList) {
  ASSERT_NE(find_int8_operator("Resize"), nullptr);
  EXPECT_EQ(find_int8_operator("Resize")->lowering, Int8Lowering::kUpsample);
  EXPECT_TRUE(find_int8_operator("Concat")->shares_scale);
  EXPECT_EQ(find_int8_operator("Softmax"), nullptr);
  EXPECT_EQ(quantized_operator_list(), "Conv, Add, Mul, Sigmoid, Concat, MaxPool, Resize, Split");
}

// The table of a HardSwish node is the op's FP32 function: the one formula in
// runtime/kernels/unary.cpp.
TEST(Int8Operators, TheTableFunctionIsTheKernels) {
  const Graph graph;
  const auto f = ops::find_op("", "HardSwish")->unary_function(graph, node_of("HardSwish", 1));
  for (float x : {-4.0F, -3.0F, -1.5F, 0.0F, 0.7F, 3.0F, 5.0F}) {
    const float expected = x * std::clamp(x / 6.0F + 0.5F, 0.0F, 1.0F);
    EXPECT_FLOAT_EQ(f(x), expected) << x;
  }
}

}  // namespace
}  // namespace yolo::runtime
