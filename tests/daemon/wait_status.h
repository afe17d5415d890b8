// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <thread>

#include <nlohmann/json.hpp>

#include "daemon/core/publisher.h"

namespace yolo::test {

// Waits until an output's status() matches `f` (its thread reports asynchronously); the status
// that matched, or nothing after `timeout`.
inline std::optional<nlohmann::json> wait_status(
    const daemon::Publisher& output, const std::function<bool(const nlohmann::json&)>& f,
    std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const nlohmann::json s = output.status();
    if (f(s)) return s;
    if (std::chrono::steady_clock::now() > deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace yolo::test
