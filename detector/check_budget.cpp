// SPDX-License-Identifier: Apache-2.0
#include "detector/check_budget.h"

#include <algorithm>
#include <stdexcept>

namespace yolo::detector {

CheckBudget::CheckBudget(double share, std::chrono::seconds max_interval, Clock::time_point now)
    : share_(share), max_interval_(max_interval), began_(now), last_ended_(now), budget_next_(now) {
  if (!(share > 0 && share <= 1)) {
    throw std::invalid_argument("a check budget is a share of one core above 0 and at most 1");
  }
  if (max_interval.count() <= 0) {
    throw std::invalid_argument("checks need a longest interval above 0 s");
  }
}

CheckBudget::Clock::time_point CheckBudget::next() const {
  if (!last_started_) return budget_next_;
  return std::min(budget_next_, *last_started_ + max_interval_);
}

bool CheckBudget::forced(Clock::time_point now) const {
  return last_started_ && now >= *last_started_ + max_interval_ && now < budget_next_;
}

void CheckBudget::spent(Clock::time_point started, Clock::time_point ended,
                        std::chrono::nanoseconds cpu) {
  const auto wait = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(std::chrono::duration<double>(cpu).count() / share_));
  last_started_ = started;
  last_ended_ = ended;
  budget_next_ = started + wait;
  cpu_total_ += cpu;
  ++checks_;
}

bool CheckBudget::starved(Clock::time_point now) const {
  return now - last_ended_ > 2 * max_interval_;
}

double CheckBudget::used_share(Clock::time_point now) const {
  const double wall = std::chrono::duration<double>(now - began_).count();
  return wall > 0 ? std::chrono::duration<double>(cpu_total_).count() / wall : 0.0;
}

}  // namespace yolo::detector
