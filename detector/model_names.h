// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace yolo::detector {

// The class names a model file carries in its metadata (Ultralytics' "names"); nullopt when the
// file cannot be read or carries none. What the config loader checks zones' and lines' class
// names against (config::LoadOptions::class_names).
std::optional<std::vector<std::string>> model_class_names(const std::filesystem::path& model);

}  // namespace yolo::detector
