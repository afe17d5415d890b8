// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace yolo::runtime {

// kFile: what the file was made for: int8 for a static (QDQ) INT8 file, fp32 for every other
// (FP32, FP16, dynamic INT8). fp32 on a QDQ file computes its Q/DQ pairs in float; int8 on an
// FP32 file runs its INT8 sibling.
enum class Precision { kFile, kFp32, kInt8 };

// The one spelling of each precision (command lines, config, logs, JSON), in the enum's order.
inline constexpr std::array<std::string_view, 3> kPrecisionNames{"file", "fp32", "int8"};

// "file", "fp32", "int8" (null-terminated: the table's literals).
constexpr const char* precision_name(Precision precision) {
  return kPrecisionNames[static_cast<std::size_t>(precision)].data();
}

// The precision a name spells, or nothing for any other text.
constexpr std::optional<Precision> parse_precision(std::string_view name) {
  for (std::size_t i = 0; i < kPrecisionNames.size(); ++i) {
    if (kPrecisionNames[i] == name) return static_cast<Precision>(i);
  }
  return std::nullopt;
}

}  // namespace yolo::runtime
