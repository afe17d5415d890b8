// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/opset13.h"

#include <gtest/gtest.h>

#include "tests/runtime/quantize/quantizer_models.h"

namespace yolo::runtime {
namespace {

using namespace quantize_test;

TEST(RaiseToOpset13, RefusesASoftmaxOverANonLastAxis) {
  ModelBuilder b(12);
  b.input("x", {1, 4, 4, 4});
  auto& sm = b.node("Softmax", {"x"}, {"out"}, "sm");
  ModelBuilder::attr(sm, "axis", std::int64_t{1});
  b.output("out");
  try {
    raise_to_opset13(b.proto(), {{"x", 4}});
    FAIL() << "raised a Softmax over axis 1 of 4";
  } catch (const QuantizeError& e) {
    EXPECT_NE(std::string(e.what()).find("sm"), std::string::npos);
  }
  ModelBuilder last(12);
  last.input("x", {1, 4});
  last.node("Softmax", {"x"}, {"out"}, "sm");  // default axis 1 of rank 2: the last one
  last.output("out");
  raise_to_opset13(last.proto(), {{"x", 2}});
  EXPECT_EQ(last.proto().opset_import(0).version(), 13);
}

}  // namespace
}  // namespace yolo::runtime
