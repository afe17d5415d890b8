// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the daemon does when INT8 stops agreeing with FP32 on the camera's frames (issue 41): the
// shadow checks' rolling agreement stays under the floor (model.auto_min_map50) for `hold`, then
// the configured action runs once: warn, switch to FP32, or requantize (FP32 meanwhile, INT8 again
// once a new file passes). Never a loop: a warning is given again only after the agreement has
// held above the floor for `hold`, a switch to FP32 stays until the next reload, and a failed
// requantize waits (retry_wait, doubling up to a day) before the next try. Pure: time and the
// agreement are passed in.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace yolo::detector {

enum class DriftAction { kWarn, kFp32, kRequantize };

struct DriftOptions {
  double min_map50 = 0.9;
  std::chrono::seconds hold{std::chrono::minutes(10)};
  DriftAction action = DriftAction::kWarn;
  // FP32's boxes the window must hold before its agreement is judged (vision::kMinJudgedBoxes:
  // one box fewer moves AP by up to 0.1).
  long min_fp32_boxes = 10;
  // After a failed requantize; doubled after each further failure, up to kLongestRetryWait.
  std::chrono::seconds retry_wait{std::chrono::hours(1)};
};

inline constexpr std::chrono::seconds kLongestRetryWait{std::chrono::hours(24)};

class DriftWatch {
 public:
  using Clock = std::chrono::steady_clock;

  enum class Phase {
    kAgrees,        // at or above the floor, or nothing judged yet
    kBelow,         // under the floor, not yet for `hold`
    kWarned,        // acted by warning; the precision running stays
    kOnFp32,        // acted by switching to FP32, until the next reload
    kRequantizing,  // a new INT8 file is being made; FP32 runs meanwhile
    kWaiting,       // a requantize failed; FP32 runs until the next try
  };
  enum class Step { kNone, kWarn, kSwitchToFp32, kRequantize, kAgreesAgain };

  struct Verdict {
    Step step = Step::kNone;
    // For the log and the page: what happened and the figures that decided it.
    std::string reason;
  };

  // Throws std::invalid_argument for a floor outside [0, 1], no hold or no retry wait.
  explicit DriftWatch(DriftOptions options);

  // After each check: the rolling agreement (empty when FP32 found nothing) and the FP32 boxes
  // it stands on.
  Verdict update(Clock::time_point now, std::optional<double> agreement, long fp32_boxes);
  // The new INT8 file passed its check and runs: the watch starts over.
  void requantized();
  // The requantize failed; FP32 keeps running and the next try waits.
  Verdict requantize_failed(Clock::time_point now, std::string_view why);

  Phase phase() const { return phase_; }
  const DriftOptions& options() const { return options_; }
  // When a failed requantize is tried again (kWaiting only).
  std::optional<Clock::time_point> retry_at() const;
  // One sentence for the status and the page: the phase, since when, and why.
  const std::string& explanation() const { return explanation_; }

 private:
  Verdict act(Clock::time_point now, double agreement);

  DriftOptions options_;
  Phase phase_ = Phase::kAgrees;
  // When the agreement went under the floor (kBelow) or back above it (kWarned, kWaiting).
  std::optional<Clock::time_point> since_;
  Clock::time_point retry_at_{};
  int failures_ = 0;
  std::string explanation_;
};

std::string_view phase_name(DriftWatch::Phase phase);
std::string_view action_name(DriftAction action);

}  // namespace yolo::detector
