// SPDX-License-Identifier: Apache-2.0
#include "runtime/int8/int8_operators.h"

#include <gtest/gtest.h>

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
  for (const auto& op : int8_operators()) {
    const bool elementwise = op.lowering == Int8Lowering::kElementwise;
    const bool chain = is_chain_op(node_of(op.op, 1)) || is_chain_op(node_of(op.op, 2));
    EXPECT_EQ(chain, elementwise) << op.op;
  }
  EXPECT_FALSE(is_chain_op(node_of("Softmax", 1)));
}

TEST(Int8Operators, LookupAndTheQuantizersList) {
  ASSERT_NE(find_int8_operator("Resize"), nullptr);
  EXPECT_EQ(find_int8_operator("Resize")->lowering, Int8Lowering::kUpsample);
  EXPECT_TRUE(find_int8_operator("Concat")->shares_scale);
  EXPECT_EQ(find_int8_operator("Softmax"), nullptr);
  EXPECT_EQ(quantized_operator_list(), "Conv, Sigmoid, Mul, Add, Concat, MaxPool, Resize, Split");
}

}  // namespace
}  // namespace yolo::runtime
