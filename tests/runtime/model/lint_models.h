// SPDX-License-Identifier: Apache-2.0
#pragma once

// Small models with the patterns runtime/model/model_lint.h flags, shared by its tests and the
// CLI's.
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/model/model_lint.h"
#include "tests/runtime/test_model_builder.h"

namespace yolo::test {

// A Q/DQ pair on float `x` with uint8 zero point `zero`; returns the DQ output.
inline std::string qdq(ModelBuilder& b, const std::string& x, float scale, std::uint8_t zero,
                       const std::string& out = "") {
  b.floats(x + "_scale", {}, {scale});
  b.raw<std::uint8_t>(x + "_zero_point", onnx::TensorProto::UINT8, {}, {zero});
  b.node("QuantizeLinear", {x, x + "_scale", x + "_zero_point"}, {x + "_q"}, x + "_QuantizeLinear");
  const std::string dq = out.empty() ? x + "_dq" : out;
  b.node("DequantizeLinear", {x + "_q", x + "_scale", x + "_zero_point"}, {dq},
         x + "_DequantizeLinear");
  return dq;
}

// A detection head in miniature: box conv and class conv on the input, Sigmoid on the classes,
// Concat into [1, 4 + 2, 16] (reshaped), optionally with Q/DQ pairs.
struct Head {
  ModelBuilder b;
  std::string boxes, scores;
};
inline Head head() {
  Head h;
  h.b.input("images", {1, 3, 4, 4});
  h.b.random("wb", {4, 3, 1, 1}, 1);
  h.b.random("wc", {2, 3, 1, 1}, 2);
  h.b.node("Conv", {"images", "wb"}, {"boxes"}, "box_conv");
  h.b.node("Conv", {"images", "wc"}, {"logits"}, "class_conv");
  h.b.node("Sigmoid", {"logits"}, {"scores"}, "sigmoid");
  h.boxes = "boxes";
  h.scores = "scores";
  return h;
}
inline void finish(Head& h, bool qdq_on_output, float scale = 0) {
  auto& cat = h.b.node("Concat", {h.boxes, h.scores}, {qdq_on_output ? "cat" : "cat_out"}, "cat");
  ModelBuilder::attr(cat, "axis", std::int64_t{1});
  h.b.ints("shape", {3}, {1, 6, 16});
  if (qdq_on_output) qdq(h.b, "cat", scale, 0, "cat_out");
  h.b.node("Reshape", {"cat_out", "shape"}, {"output0"}, "reshape");
  h.b.output("output0");
}

// Every finding as text, one per line, for failure messages.
inline std::string findings_text(const std::vector<runtime::LintFinding>& findings) {
  std::string text;
  for (const auto& f : findings) text += to_string(f) + "\n";
  return text;
}

}  // namespace yolo::test
