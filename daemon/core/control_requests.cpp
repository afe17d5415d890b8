// SPDX-License-Identifier: Apache-2.0
#include "daemon/core/control_requests.h"

#include <sys/eventfd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace yolo::daemon {

ControlRequests::ControlRequests() : event_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  if (!event_.valid()) {
    throw std::runtime_error(std::string("cannot create the control eventfd: ") +
                             std::strerror(errno));
  }
}

std::shared_ptr<std::promise<ControlReply>> ControlRequests::queue(ControlRequest request) {
  auto reply = std::make_shared<std::promise<ControlReply>>();
  {
    std::lock_guard lock(mutex_);
    if (closed_) {
      reply->set_value({ControlReply::Outcome::kStopping, "the daemon is stopping", {}});
      return reply;
    }
    pending_.push_back({std::move(request), reply});
  }
  const std::uint64_t one = 1;
  // The counter only saturates after 2^64 - 2 unserved requests; a failed write cannot happen.
  [[maybe_unused]] const ssize_t n = write(event_.get(), &one, sizeof one);
  return reply;
}

std::optional<ControlReply> ControlRequests::call(ControlRequest request,
                                                  std::chrono::milliseconds timeout) {
  std::future<ControlReply> answer = queue(std::move(request))->get_future();
  if (answer.wait_for(timeout) != std::future_status::ready) return std::nullopt;
  return answer.get();
}

void ControlRequests::post(ControlRequest request) {
  queue(std::move(request));
}

void ControlRequests::serve(const std::function<ControlReply(const ControlRequest&)>& handler) {
  std::uint64_t count = 0;
  [[maybe_unused]] const ssize_t n = read(event_.get(), &count, sizeof count);
  std::vector<Pending> pending;
  {
    std::lock_guard lock(mutex_);
    pending.swap(pending_);
  }
  for (Pending& p : pending) {
    try {
      p.reply->set_value(handler(p.request));
    } catch (const std::exception& e) {
      p.reply->set_value({ControlReply::Outcome::kRefused, e.what(), {}});
    }
  }
}

void ControlRequests::close() {
  std::vector<Pending> pending;
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    pending.swap(pending_);
  }
  for (Pending& p : pending) {
    p.reply->set_value({ControlReply::Outcome::kStopping, "the daemon is stopping", {}});
  }
}

}  // namespace yolo::daemon
