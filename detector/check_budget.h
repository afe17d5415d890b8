// SPDX-License-Identifier: Apache-2.0
#pragma once

// When the next shadow check may start (issue 41). Checks spend at most `share` of one core on
// average: after a check that took c seconds of CPU, the next waits until c / share seconds after
// it started. Yet one is due at least every `max_interval` whatever that says, so a device whose
// checks are dear (a big model on a Pi 4) is still judged; only then can the average exceed the
// share, and only when one check costs more than share * max_interval. The CPU time is the
// checking thread's own (CLOCK_THREAD_CPUTIME_ID), measured by the caller; time is passed in, so
// tests run it on a clock of their own.

#include <chrono>
#include <optional>

namespace yolo::detector {

class CheckBudget {
 public:
  using Clock = std::chrono::steady_clock;

  // Throws std::invalid_argument unless 0 < share <= 1 and max_interval > 0.
  CheckBudget(double share, std::chrono::seconds max_interval, Clock::time_point now);

  // Whether a check may start at `now`.
  bool due(Clock::time_point now) const { return now >= next(); }
  // Whether the check due at `now` is due only because max_interval has passed (the budget alone
  // would wait): it should then run even if the device is busy.
  bool forced(Clock::time_point now) const;
  // When the next check may start.
  Clock::time_point next() const;

  // A check started at `started` ended at `ended` having used `cpu` of CPU time.
  void spent(Clock::time_point started, Clock::time_point ended, std::chrono::nanoseconds cpu);

  // No check has ended for twice max_interval (since the budget began or the last one ended):
  // checks that are due do not get to run, and the status must say so.
  bool starved(Clock::time_point now) const;
  // The CPU time spent on checks over the time since the budget began, as a share of one core.
  double used_share(Clock::time_point now) const;
  long checks() const { return checks_; }

 private:
  double share_;
  std::chrono::seconds max_interval_;
  Clock::time_point began_;
  Clock::time_point last_ended_;
  std::optional<Clock::time_point> last_started_;
  // The budget's next start: last start + its CPU time / share.
  Clock::time_point budget_next_;
  std::chrono::nanoseconds cpu_total_{0};
  long checks_ = 0;
};

}  // namespace yolo::detector
