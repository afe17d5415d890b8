// SPDX-License-Identifier: Apache-2.0
#pragma once

// The model the INT8 fixture tests quantize and run: yolo11n at 320 from the fixtures, and the
// golden inputs of its images.

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "runtime/engine/tensor.h"
#include "runtime/model/onnx_model.h"
#include "runtime/quantize/graph_index.h"
#include "runtime/quantize/regions.h"
#include "tests/support/fixtures.h"
#include "tests/support/golden_image.h"

namespace yolo::test {

inline std::filesystem::path yolo11n_320_model() {
  return fixtures_dir() / "models" / "yolo11n_320_fp32.onnx";
}

// The golden input of `image` ("dog", "horses", ...): 320 x 320 letterboxed RGB bytes.
inline std::vector<std::uint8_t> yolo11n_320_input(const std::string& image) {
  return read_golden_input("yolo11n_320_fp32", image, 320);
}

// The detection tail `auto` keeps FP32, named as the quantizer names the graph's nodes.
inline std::set<std::string> yolo11n_320_tail() {
  onnx::GraphProto graph = runtime::OnnxModel::load(yolo11n_320_model()).proto().graph();
  runtime::name_unnamed_nodes(graph);
  return runtime::find_regions(graph).tail;
}

// The highest score of each class over all anchors of a [1, 4+nc, N] output.
inline std::vector<float> class_scores(const runtime::Tensor& out) {
  const auto v = out.values<float>();
  const std::int64_t rows = out.shape()[1], n = out.shape()[2];
  std::vector<float> best(static_cast<std::size_t>(rows - 4), 0.0F);
  for (std::int64_t r = 4; r < rows; ++r) {
    for (std::int64_t i = 0; i < n; ++i) {
      auto& b = best[static_cast<std::size_t>(r - 4)];
      b = std::max(b, v[static_cast<std::size_t>(r * n + i)]);
    }
  }
  return best;
}

}  // namespace yolo::test
