// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "daemon/outputs/http/http_connections.h"
#include "daemon/outputs/http/http_exchange.h"
#include "daemon/outputs/http/http_loop_thread.h"

namespace yolo::daemon::http {

// The exchanges taken off libmicrohttpd's loop while they wait (for a frame, an event, a control
// job or a time) and put back on it when that comes, so that a wait holds no thread. Its timer
// thread puts back those whose time has come and, on the same beat, cuts off the connections
// whose request is overdue.
class WaitingExchanges {
 public:
  using Lock = std::unique_lock<std::mutex>;

  // `connections`: cut off on the timer's beat.
  explicit WaitingExchanges(HttpConnections& connections);

  void start() {
    timer_.start("http-timer", [this] { timer_loop(); });
  }
  bool stop_within(std::chrono::milliseconds limit) { return timer_.stop_within(limit); }

  // Takes `ex` off the loop until one of `wake` happens or `until`; false when the server is
  // closing, or when `ex` waits for its job and that has run (then answer at once).
  bool suspend(const std::shared_ptr<Exchange>& ex, unsigned wake, Clock::time_point until);
  // A stream's body looks for more to send under lock() and suspends under the same lock, so
  // that an item pushed between its look and its wait still wakes it.
  Lock lock();
  bool closing(const Lock& lock) const;
  void suspend(const Lock& lock, const std::shared_ptr<Exchange>& ex, unsigned wake,
               Clock::time_point until);

  // Puts back the exchanges that `wake` (or their time) has come for.
  void resume(unsigned wake);
  // `ex`'s control job has run, making `answer` (none: it was dropped): done, and back on the
  // loop.
  void finish(const std::shared_ptr<Exchange>& ex, std::optional<Answer> answer);
  // Whether `ex`'s control job has run.
  bool finished(const Exchange& ex);

  // A server is about to take requests: exchanges may wait again.
  void open();
  // The server is about to stop: every exchange back on the loop to be answered (stopping one
  // with exchanges suspended is an error of libmicrohttpd's API), and none taken off again.
  void close();

 private:
  void timer_loop();

  HttpConnections& connections_;
  std::mutex mutex_;
  // Wakes the timer thread for a nearer time, or to stop.
  std::condition_variable timers_;
  std::vector<std::shared_ptr<Exchange>> waiting_;
  bool closing_ = false;
  LoopThread timer_{mutex_, timers_};
};

}  // namespace yolo::daemon::http
