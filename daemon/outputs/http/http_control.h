// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>

#include "daemon/outputs/http/http_loop_thread.h"
#include "daemon/outputs/http/http_waiting.h"

namespace yolo::daemon::http {

// The API's calls into the daemon (a reload, a precision switch, a counts reset), one at a time
// on their own thread: each may wait seconds for the control loop, which libmicrohttpd's loop
// must not.
class ControlJobs {
 public:
  explicit ControlJobs(WaitingExchanges& waiting);

  void start() {
    thread_.start("http-control", [this] { loop(); });
  }
  // The thread may be waiting on the control loop (up to HttpLimits::control_timeout): it is
  // waited for `limit` at most. Jobs still queued are dropped (their requests get 503).
  bool stop_within(std::chrono::milliseconds limit) { return thread_.stop_within(limit); }

  // Runs ex->job on the control thread, then hands its answer back (WaitingExchanges::finish).
  void post(const std::shared_ptr<Exchange>& ex);

 private:
  void loop();

  WaitingExchanges& waiting_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::shared_ptr<Exchange>> jobs_;
  LoopThread thread_{mutex_, ready_};
};

}  // namespace yolo::daemon::http
