// SPDX-License-Identifier: Apache-2.0
#pragma once

// Waiting in a test for what another thread does.
#include <chrono>
#include <thread>

namespace yolo::test {

// Polls `done` every `pause` until it holds: false when it still does not once `limit` passed.
template <class Done>
bool eventually(Done&& done, std::chrono::milliseconds limit = std::chrono::seconds(5),
                std::chrono::milliseconds pause = std::chrono::milliseconds(5)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(pause);
  }
  return true;
}

}  // namespace yolo::test
