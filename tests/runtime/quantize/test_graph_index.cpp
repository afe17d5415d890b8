// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/graph_index.h"

#include <gtest/gtest.h>

#include "tests/runtime/quantize/quantizer_models.h"

namespace yolo::runtime {
namespace {

using namespace quantize_test;

TEST(QuantizedTensors, EveryInputAndOutputOfTheQuantizableNodes) {
  ModelBuilder b = tiny_model();
  const auto all = quantized_tensors(b.proto().graph(), {});
  EXPECT_EQ(all, (std::vector<std::string>{"x", "y1", "s1", "m1", "y2", "cat", "out"}));
  const auto kept = quantized_tensors(b.proto().graph(), {"c3"});
  EXPECT_EQ(std::count(kept.begin(), kept.end(), "out"), 0);
  EXPECT_EQ(std::count(kept.begin(), kept.end(), "cat"), 1);  // still the concat's output
}

}  // namespace
}  // namespace yolo::runtime
