// SPDX-License-Identifier: Apache-2.0
#pragma once

// The model the INT8 fixture tests quantize and run: yolo11n at 320 from the fixtures, and the
// golden inputs of its images.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

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

}  // namespace yolo::test
