// SPDX-License-Identifier: Apache-2.0
#include "daemon/base/worker.h"

#include <pthread.h>

namespace yolo::daemon {

Worker::~Worker() {
  if (thread_.joinable()) thread_.join();
}

void Worker::start(std::string name, std::function<void()> body) {
  done_ = false;
  thread_ = std::thread([this, name = std::move(name), body = std::move(body)] {
    pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
    body();
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    done_cv_.notify_all();
  });
}

bool Worker::stop_within(std::chrono::milliseconds limit) {
  if (!thread_.joinable()) return true;
  {
    std::unique_lock lock(mutex_);
    if (!done_cv_.wait_for(lock, limit, [&] { return done_; })) return false;
  }
  thread_.join();
  return true;
}

}  // namespace yolo::daemon
