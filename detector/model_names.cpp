// SPDX-License-Identifier: Apache-2.0
#include "detector/model_names.h"

#include <exception>

#include "runtime/model/model_metadata.h"
#include "runtime/model/onnx_model.h"

namespace yolo::detector {

std::optional<std::vector<std::string>> model_class_names(const std::filesystem::path& model) {
  try {
    std::vector<std::string> problems;
    std::vector<std::string> names =
        runtime::read_metadata(runtime::OnnxModel::load(model).proto(), problems).names;
    if (names.empty()) return std::nullopt;
    return names;
  } catch (const std::exception&) {
    // The model's own check (model.path) says what is wrong with the file.
    return std::nullopt;
  }
}

}  // namespace yolo::detector
