// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/http/http_waiting.h"

#include <microhttpd.h>

#include <algorithm>

namespace yolo::daemon::http {

namespace {

// The timer thread also cuts overdue requests this often.
constexpr auto kSweep = std::chrono::milliseconds(250);

}  // namespace

WaitingExchanges::WaitingExchanges(HttpConnections& connections) : connections_(connections) {}

bool WaitingExchanges::suspend(const std::shared_ptr<Exchange>& ex, unsigned wake,
                               Clock::time_point until) {
  const Lock lock(mutex_);
  if (closing_) return false;
  // The job may have ended between the handler's look and here: no wait then.
  if ((wake & kOnJob) && ex->done) return false;
  suspend(lock, ex, wake, until);
  return true;
}

WaitingExchanges::Lock WaitingExchanges::lock() {
  return Lock(mutex_);
}

bool WaitingExchanges::closing(const Lock&) const {
  return closing_;
}

void WaitingExchanges::suspend(const Lock&, const std::shared_ptr<Exchange>& ex, unsigned wake,
                               Clock::time_point until) {
  ex->wake = wake;
  ex->until = until;
  MHD_suspend_connection(ex->connection);
  waiting_.push_back(ex);
  if (until != kNever) timers_.notify_all();
}

void WaitingExchanges::resume(unsigned wake) {
  const auto now = Clock::now();
  std::lock_guard lock(mutex_);
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    Exchange& ex = **it;
    if ((ex.wake & wake) != 0 || ex.until <= now) {
      MHD_resume_connection(ex.connection);
      it = waiting_.erase(it);
    } else {
      ++it;
    }
  }
}

void WaitingExchanges::finish(const std::shared_ptr<Exchange>& ex, std::optional<Answer> answer) {
  std::lock_guard lock(mutex_);
  ex->held = std::move(answer);
  ex->done = true;
  const auto it = std::find(waiting_.begin(), waiting_.end(), ex);
  if (it == waiting_.end()) return;
  MHD_resume_connection(ex->connection);
  waiting_.erase(it);
}

bool WaitingExchanges::finished(const Exchange& ex) {
  std::lock_guard lock(mutex_);
  return ex.done;
}

void WaitingExchanges::open() {
  std::lock_guard lock(mutex_);
  closing_ = false;
}

void WaitingExchanges::close() {
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
    for (const auto& ex : waiting_) {
      MHD_resume_connection(ex->connection);
    }
    waiting_.clear();
  }
  timers_.notify_all();
}

void WaitingExchanges::timer_loop() {
  for (;;) {
    {
      Lock lock(mutex_);
      Clock::time_point next = Clock::now() + kSweep;
      for (const auto& ex : waiting_) next = std::min(next, ex->until);
      timers_.wait_until(lock, next);
      if (timer_.stopping()) return;
    }
    resume(0);
    connections_.cut_overdue();
    connections_.release_flood_memory();
  }
}

}  // namespace yolo::daemon::http
