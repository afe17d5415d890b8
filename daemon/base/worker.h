// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace yolo::daemon {

// One named thread of the daemon (the name shows in top -H and /proc/PID/task/*/comm, which
// is how the per-thread CPU figures are measured). Joins on destruction; stop_within() gives up
// on a thread stuck in a call it cannot be woken from (a camera driver that never returns), so
// the daemon can still exit on time.
class Worker {
 public:
  Worker() = default;
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;
  ~Worker();

  // Starts `body` on a new thread named `name` (at most 15 characters).
  void start(std::string name, std::function<void()> body);
  bool running() const { return thread_.joinable(); }
  // Waits up to `limit` for the body to return; true when it did (the thread is joined), false
  // when it is still running (it is then left alone: its owner must not be destroyed).
  bool stop_within(std::chrono::milliseconds limit);

 private:
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable done_cv_;
  bool done_ = false;
};

}  // namespace yolo::daemon
