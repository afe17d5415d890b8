// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstddef>
#include <filesystem>
#include <string_view>

#include "runtime/engine/input_size.h"
#include "runtime/engine/precision.h"

namespace yolo::config {

// What model.precision asks for: the engine's precisions, or auto (chosen by measurement).
enum class Precision { kFile, kFp32, kInt8, kAuto };
// Its names, in the enum's order: the engine's three spelled as the engine spells them, then auto.
inline constexpr std::array<std::string_view, 4> kPrecisionNames{
    runtime::kPrecisionNames[0], runtime::kPrecisionNames[1], runtime::kPrecisionNames[2], "auto"};
static_assert(static_cast<int>(Precision::kFile) == static_cast<int>(runtime::Precision::kFile) &&
              static_cast<int>(Precision::kFp32) == static_cast<int>(runtime::Precision::kFp32) &&
              static_cast<int>(Precision::kInt8) == static_cast<int>(runtime::Precision::kInt8));
// "file", "fp32", "int8", "auto".
constexpr const char* precision_name(Precision precision) {
  return kPrecisionNames[static_cast<std::size_t>(precision)].data();
}
// model.quantize and model.decoder, in the order of their rows' choices.
enum class Quantize { kOff, kAuto };
enum class Decoder { kAuto, kYolov8, kEnd2end, kYolov5 };

// Which network runs and how. Rows and rules: config/sections/model.cpp.
struct ModelConfig {
  std::filesystem::path path;
  std::filesystem::path int8_path;
  Precision precision{};
  Quantize quantize{};
  int calibration_frames{};
  // The runtime's own type (a value, no link to the runtime): 0 is kModel, 640 or [384, 640]
  // kFixed, auto kAuto without a frame size (the daemon adds the camera's).
  runtime::InputSize imgsz;
  std::filesystem::path labels;
  Decoder decoder{};
  double auto_min_map50{};

  bool operator==(const ModelConfig&) const = default;
};

}  // namespace yolo::config
