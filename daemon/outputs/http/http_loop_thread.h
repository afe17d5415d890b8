// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <utility>

#include "daemon/base/worker.h"

namespace yolo::daemon::http {

// One of the HTTP server's threads (listener, encoder, timer, control), which loops waiting on
// its owner's condition variable under its owner's mutex (the one that guards what it waits for)
// until asked to stop.
class LoopThread {
 public:
  LoopThread(std::mutex& mutex, std::condition_variable& wake) : mutex_(mutex), wake_(wake) {}

  void start(std::string name, std::function<void()> body) {
    worker_.start(std::move(name), std::move(body));
  }
  // Asks the loop to end, wakes it and waits up to `limit` for it (Worker::stop_within).
  bool stop_within(std::chrono::milliseconds limit) {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    return worker_.stop_within(limit);
  }
  // Whether the loop should end; read under the owner's mutex.
  bool stopping() const { return stopping_; }

 private:
  std::mutex& mutex_;
  std::condition_variable& wake_;
  bool stopping_ = false;
  Worker worker_;
};

}  // namespace yolo::daemon::http
