// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/http/http_control.h"

#include <optional>

namespace yolo::daemon::http {

ControlJobs::ControlJobs(WaitingExchanges& waiting) : waiting_(waiting) {}

void ControlJobs::post(const std::shared_ptr<Exchange>& ex) {
  ex->queued = true;
  {
    std::lock_guard lock(mutex_);
    jobs_.push_back(ex);
  }
  ready_.notify_one();
}

void ControlJobs::loop() {
  for (;;) {
    std::shared_ptr<Exchange> ex;
    bool stopping = false;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [&] { return !jobs_.empty() || thread_.stopping(); });
      if (jobs_.empty()) return;
      ex = std::move(jobs_.front());
      jobs_.pop_front();
      stopping = thread_.stopping();
    }
    std::optional<Answer> answer;
    if (!stopping) answer = ex->job();
    waiting_.finish(ex, std::move(answer));
  }
}

}  // namespace yolo::daemon::http
