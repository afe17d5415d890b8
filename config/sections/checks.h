// SPDX-License-Identifier: Apache-2.0
#pragma once

namespace yolo::config {

// What the daemon does when INT8 keeps disagreeing with FP32 on the camera's frames.
enum class DriftAction { kWarn, kFp32, kRequantize };

// The live INT8 checks (issue 41). Rows and rules: config/sections/checks.cpp.
struct ChecksConfig {
  bool enabled{};
  double budget_percent{};
  int max_interval_s{};
  int window_min{};
  int drift_after_min{};
  DriftAction drift_action{};

  bool operator==(const ChecksConfig&) const = default;
};

}  // namespace yolo::config
