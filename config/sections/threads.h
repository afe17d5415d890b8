// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace yolo::config {

enum class ThreadMode { kFixed, kAdaptive, kEfficiency };
// Its names, in the enum's order.
inline constexpr std::array<std::string_view, 3> kThreadModeNames{"fixed", "adaptive",
                                                                  "efficiency"};
constexpr const char* thread_mode_name(ThreadMode mode) {
  return kThreadModeNames[static_cast<std::size_t>(mode)].data();
}

// How many inference threads, fixed or chosen by measurement. Rows and rules:
// config/sections/threads.cpp.
struct ThreadsConfig {
  ThreadMode mode{};
  int count{};
  int max{};
  double margin{};

  bool operator==(const ThreadsConfig&) const = default;
};

}  // namespace yolo::config
