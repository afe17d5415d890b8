// SPDX-License-Identifier: Apache-2.0
#include "daemon/pipeline/thread_controller.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <utility>

#include "detector/precision_trial.h"
#include "text/format.h"

namespace yolo::daemon {
namespace {

// Frames dropped after each count change while exploring.
constexpr std::size_t kWarmupFrames = 1;
// Frames a count's median is taken over; no count is settled on with fewer.
constexpr std::size_t kSamplesPerCount = 5;
// A frame this many times the best median is "far slower": a collapse, not noise.
constexpr double kFarSlower = 3.0;
// Far-slower frames in a row that abandon an unproven count while exploring.
constexpr int kAbandonFrames = 2;
// Far-slower frames in a row that make a settled count (with its track record) collapse: 3
// outliers in a row, at a 3 % outlier rate, come once in 37 000 frames; 4 once in 1.2 million.
constexpr int kCollapseFrames = 4;
// Settled frames whose median becomes the baseline drift is measured against.
constexpr std::size_t kBaselineFrames = 30;
// Frames in the drift median, and frames in a row it must stay off the baseline.
constexpr std::size_t kDriftWindow = 15;
constexpr int kDriftRun = 15;
constexpr double kDriftFraction = 0.2;
// Hold-off before a drift, throttling change or recheck explores again, in settled frames.
constexpr long kMinHoldoff = static_cast<long>(kBaselineFrames);
constexpr long kMaxHoldoff = 3000;
// A recheck comes after this many hold-offs settled.
constexpr long kRecheckHoldoffs = 32;

void validate(const ThreadPolicy& p) {
  if (p.fixed < 1) {
    throw std::invalid_argument("thread policy: fixed is " + std::to_string(p.fixed) +
                                "; it must be at least 1 (turn 0 into the core count first)");
  }
  if (p.max < 1) {
    throw std::invalid_argument("thread policy: max is " + std::to_string(p.max) +
                                "; it must be at least 1 (turn 0 into the core count first)");
  }
  if (!std::isfinite(p.margin) || p.margin < 0) {
    throw std::invalid_argument("thread policy: margin is " + std::to_string(p.margin) +
                                "; it must be a fraction >= 0, e.g. 0.1 for 10 %");
  }
}

double median(std::vector<double> v) {
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  if (v.size() % 2 == 1) return v[mid];
  return (v[mid] + *std::max_element(v.begin(), v.begin() + mid)) / 2;
}

std::string ms(double value) {
  return text::format("%.1f ms", value);
}
std::string percent(double fraction) {
  return text::format("%.0f%%", fraction * 100);
}

std::string threads_text(int n) {
  return std::to_string(n) + (n == 1 ? " thread" : " threads");
}

std::string policy_text(const ThreadPolicy& p) {
  if (p.mode == config::ThreadMode::kFixed) return "fixed, " + threads_text(p.fixed);
  std::string text =
      std::string(config::thread_mode_name(p.mode)) + ", max " + std::to_string(p.max);
  if (p.mode == config::ThreadMode::kEfficiency) text += ", margin " + percent(p.margin);
  return text;
}

}  // namespace

ThreadController::ThreadController(ThreadPolicy policy) {
  validate(policy);
  policy_ = policy;
  candidates_ = detector::thread_counts_to_try(policy_.max);
  start("explore", "exploring thread counts up to " + std::to_string(policy_.max) + " (" +
                       policy_text(policy_) + ")");
}

int ThreadController::threads() const {
  return threads_;
}

bool ThreadController::settled() const {
  return !exploration_;
}

const ThreadPolicy& ThreadController::policy() const {
  return policy_;
}

const ThreadDecision& ThreadController::last_decision() const {
  return last_decision_;
}

bool ThreadController::explores() const {
  return policy_.mode != config::ThreadMode::kFixed && policy_.max > 1;
}

ThreadDecision ThreadController::start(const std::string& kind, const std::string& why) {
  holdoff_ = kMinHoldoff;
  last_answer_.reset();
  exploration_.reset();
  watch_ = Watch{};
  if (policy_.mode == config::ThreadMode::kFixed) {
    return decide("fixed", policy_.fixed,
                  "fixed at " + threads_text(policy_.fixed) + " (threads.mode fixed)");
  }
  if (policy_.max == 1) {
    return decide("settle", 1, "settled on 1 thread: max is 1, nothing to explore");
  }
  return begin(kind, why);
}

ThreadDecision ThreadController::begin(const std::string& kind, const std::string& why) {
  exploration_ = Exploration{};
  watch_ = Watch{};
  measured_throttled_ = throttled_;
  return decide(kind, candidates_.front(), why + "; trying " + threads_text(candidates_.front()));
}

ThreadDecision ThreadController::decide(std::string kind, int to, std::string reason,
                                        std::map<int, double> latency_ms) {
  last_decision_ = ThreadDecision{.from = threads_,
                                  .to = to,
                                  .kind = std::move(kind),
                                  .reason = std::move(reason),
                                  .latency_ms = std::move(latency_ms)};
  threads_ = to;
  return last_decision_;
}

std::optional<ThreadDecision> ThreadController::observe(double inference_ms) {
  if (!std::isfinite(inference_ms) || inference_ms < 0) {
    throw std::invalid_argument("thread controller: inference latency " +
                                std::to_string(inference_ms) +
                                " ms is not a duration; pass the measured milliseconds");
  }
  if (!explores()) return std::nullopt;
  return exploration_ ? explore(inference_ms) : watch(inference_ms);
}

std::optional<ThreadDecision> ThreadController::explore(double inference_ms) {
  Exploration& e = *exploration_;
  e.frames.push_back(inference_ms);
  if (!e.medians.empty() && inference_ms > kFarSlower * detector::fastest(e.medians).second) {
    ++e.far_slower_run;
  } else {
    e.far_slower_run = 0;
  }
  if (e.far_slower_run >= kAbandonFrames) {
    e.abandoned = {threads_, median(e.frames)};
    return settle();
  }
  if (e.frames.size() < kWarmupFrames + kSamplesPerCount) return std::nullopt;

  const double m = median(std::vector<double>(e.frames.begin() + kWarmupFrames, e.frames.end()));
  e.medians[threads_] = m;
  e.frames.clear();
  e.far_slower_run = 0;
  if (++e.index == candidates_.size()) return settle();
  const int next = candidates_[e.index];
  return decide("explore", next,
                "trying " + threads_text(next) + ": " + threads_text(threads_) + " took " + ms(m) +
                    " (median of " + std::to_string(kSamplesPerCount) + ")",
                e.medians);
}

ThreadDecision ThreadController::settle() {
  const Exploration e = std::move(*exploration_);
  exploration_.reset();
  const auto [best, best_ms] = detector::fastest(e.medians);
  int choice = best;
  if (policy_.mode == config::ThreadMode::kEfficiency) {
    // std::map iterates from the fewest threads.
    for (const auto& [n, m] : e.medians) {
      if (m <= best_ms * (1 + policy_.margin)) {
        choice = n;
        break;
      }
    }
  }
  const double choice_ms = e.medians.at(choice);

  std::string reason = "settled on " + threads_text(choice) + ": " + ms(choice_ms) + " median";
  if (choice != best) {
    reason += ", within " + percent(choice_ms / best_ms - 1) + " of the fastest, " + ms(best_ms) +
              " at " + std::to_string(best);
  } else if (e.medians.size() > 1) {
    std::map<int, double> others = e.medians;
    others.erase(best);
    const auto [runner_up, runner_up_ms] = detector::fastest(others);
    reason += " vs " + ms(runner_up_ms) + " at " + std::to_string(runner_up);
  }
  reason += std::string(" (") + config::thread_mode_name(policy_.mode);
  if (policy_.mode == config::ThreadMode::kEfficiency) {
    reason += ", margin " + percent(policy_.margin);
  }
  reason += ")";

  std::map<int, double> latency_ms = e.medians;
  std::string kind = "settle";
  if (e.abandoned) {
    const auto [count, count_ms] = *e.abandoned;
    latency_ms[count] = count_ms;
    kind = "abandon";
    reason = "abandoned " + threads_text(count) + " after " + std::to_string(kAbandonFrames) +
             " frames at " + ms(count_ms) + ", over " + text::format("%.0f", kFarSlower) +
             "x the best; " + reason;
  }

  if (last_answer_ == choice) {
    holdoff_ = std::min(holdoff_ * 2, kMaxHoldoff);
    reason += "; same count as the last exploration, so exploring again waits " +
              std::to_string(holdoff_) + " frames (recheck after " +
              std::to_string(holdoff_ * kRecheckHoldoffs) + ")";
  } else {
    holdoff_ = kMinHoldoff;
  }
  last_answer_ = choice;
  watch_ = Watch{};
  watch_.warmup = choice == threads_ ? 0 : static_cast<int>(kWarmupFrames);
  watch_.baseline_ms = choice_ms;
  return decide(std::move(kind), choice, std::move(reason), std::move(latency_ms));
}

std::optional<ThreadDecision> ThreadController::watch(double inference_ms) {
  Watch& w = watch_;
  ++w.frames;
  if (w.warmup > 0) {
    --w.warmup;
    return std::nullopt;
  }
  w.far_slower_run = inference_ms > kFarSlower * w.baseline_ms ? w.far_slower_run + 1 : 0;
  if (w.far_slower_run >= kCollapseFrames) {
    return begin("drift", "latency at " + threads_text(threads_) +
                              " collapsed: " + std::to_string(kCollapseFrames) +
                              " frames in a row over " + text::format("%.0f", kFarSlower) +
                              "x the settled " + ms(w.baseline_ms) + ", the last " +
                              ms(inference_ms) + "; exploring again");
  }

  if (w.baseline_frames.size() < kBaselineFrames) {
    w.baseline_frames.push_back(inference_ms);
    if (w.baseline_frames.size() == kBaselineFrames) {
      const double explored_ms = w.baseline_ms;
      w.baseline_ms = median(w.baseline_frames);
      // Conditions changed during or right after exploring: the choice rests on stale figures.
      const double moved = w.baseline_ms / explored_ms - 1;
      if (std::abs(moved) > kDriftFraction && w.frames >= holdoff_) {
        return begin("drift", "latency at " + threads_text(threads_) + " settled at " +
                                  ms(w.baseline_ms) + " (median of " +
                                  std::to_string(kBaselineFrames) + " frames), not the " +
                                  ms(explored_ms) + " measured while exploring (" +
                                  text::format("%+.0f%%", moved * 100) + "); exploring again");
      }
    }
  } else {
    w.recent.push_back(inference_ms);
    if (w.recent.size() > kDriftWindow) w.recent.pop_front();
    const bool drifted =
        w.recent.size() == kDriftWindow &&
        std::abs(median(std::vector<double>(w.recent.begin(), w.recent.end())) / w.baseline_ms -
                 1) > kDriftFraction;
    w.drift_run = drifted ? w.drift_run + 1 : 0;
  }

  return explore_again_if_due();
}

std::optional<ThreadDecision> ThreadController::explore_again_if_due() {
  const Watch& w = watch_;
  if (w.frames < holdoff_) return std::nullopt;
  if (w.drift_run >= kDriftRun) {
    const double now = median(std::vector<double>(w.recent.begin(), w.recent.end()));
    return begin("drift", "latency at " + threads_text(threads_) + " drifted from " +
                              ms(w.baseline_ms) + " to " + ms(now) + " (" +
                              text::format("%+.0f%%", (now / w.baseline_ms - 1) * 100) +
                              ", median of " + std::to_string(kDriftWindow) + " frames, for " +
                              std::to_string(kDriftRun) + " frames); exploring again");
  }
  if (throttled_ != measured_throttled_) {
    return begin("throttled",
                 std::string(throttled_ ? "the device reports throttling" : "throttling ended") +
                     "; the latencies measured no longer hold, exploring again");
  }
  if (w.frames >= holdoff_ * kRecheckHoldoffs) {
    return begin("recheck", "settled on " + threads_text(threads_) + " for " +
                                std::to_string(w.frames) +
                                " frames; exploring again in case the load changed");
  }
  return std::nullopt;
}

std::optional<ThreadDecision> ThreadController::restart(const std::string& reason) {
  if (!explores()) return std::nullopt;
  return start("restart", "exploring again: " + reason);
}

std::optional<ThreadDecision> ThreadController::throttling_changed(bool throttled) {
  if (throttled == throttled_) return std::nullopt;
  throttled_ = throttled;
  // While exploring the exploration's end compares the states; observe() explores once it may.
  if (!explores() || exploration_) return std::nullopt;
  return explore_again_if_due();
}

std::optional<ThreadDecision> ThreadController::set_policy(const ThreadPolicy& policy) {
  validate(policy);
  if (policy == policy_) return std::nullopt;
  const bool same_fixed_count = policy.mode == config::ThreadMode::kFixed &&
                                policy_.mode == config::ThreadMode::kFixed &&
                                policy.fixed == policy_.fixed;
  const std::string before = policy_text(policy_);
  policy_ = policy;
  candidates_ = detector::thread_counts_to_try(policy_.max);
  if (same_fixed_count) return std::nullopt;
  return start("restart", "exploring again: the threads section changed from " + before + " to " +
                              policy_text(policy_));
}

}  // namespace yolo::daemon
