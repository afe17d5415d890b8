// SPDX-License-Identifier: Apache-2.0
#pragma once

// The running daemon's /api/status, as the daemon tests that watch it poll it.

#include <httplib.h>

#include <chrono>
#include <functional>
#include <thread>

#include <nlohmann/json.hpp>

namespace yolo::test {

// GET /api/status on 127.0.0.1:`port`; an empty object when it does not answer 200.
inline nlohmann::json api_status(int port) {
  httplib::Client c("127.0.0.1", port);
  c.set_read_timeout(std::chrono::seconds(10));
  const auto r = c.Get("/api/status");
  if (!r || r->status != 200) return nlohmann::json::object();
  return nlohmann::json::parse(r->body);
}

// Polls the status until `pred` holds or `timeout` passes; the last status seen either way.
inline nlohmann::json wait_for_status(int port,
                                      const std::function<bool(const nlohmann::json&)>& pred,
                                      std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  nlohmann::json s;
  while (std::chrono::steady_clock::now() < deadline) {
    s = api_status(port);
    if (pred(s)) return s;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return s;
}

}  // namespace yolo::test
