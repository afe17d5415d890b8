// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "daemon/core/daemon_status.h"
#include "daemon/core/events.h"
#include "daemon/model/model_plan.h"
#include "daemon/pipeline/inference.h"
#include "detector/precision_trial.h"

namespace yolo::daemon {

// What the live INT8 checks have seen of an INT8 file while FP32 ran (ShadowChecks): the evidence
// precision auto is re-judged on.
struct LiveAgreement {
  std::filesystem::path int8;
  // The checks' judged agreement over their window (empty: FP32 found nothing), FP32's boxes and
  // the checks it stands on, and the window's span.
  std::optional<double> agreement;
  long fp32_boxes = 0;
  long checks = 0;
  std::chrono::seconds window{};
};

// precision: auto, the decisions: when INT8 is measured against FP32 on this camera's frames, and
// what a trial's outcome decides. The manager does what they ask: it builds the candidate, has the
// inference thread run or cancel the trial, and swaps in INT8 when it wins. Driven by the
// manager's thread; the outcome is handed over by the inference thread and the status read from
// any thread.
class PrecisionAuto {
 public:
  using Clock = std::chrono::steady_clock;

  // How long an undecided trial (nothing detected to compare) waits to run again, on other
  // frames.
  static constexpr std::chrono::minutes kRetry{10};

  // What the manager does next.
  enum class Next {
    // Nothing now: no trial is wanted, one is under way, or FP32 must run first.
    kWait,
    // Build the plan's candidate and start a trial: measuring(), or cannot_load() when the build
    // fails.
    kMeasure,
    // The trial under way measures what is no longer wanted.
    kCancel,
  };

  explicit PrecisionAuto(Events& events);

  // For `model` planned as `p`, at `now`: `fp32_running` says whether p.fp32 runs, which the
  // trial measures INT8 against (a decision for other models swaps FP32 in first).
  Next next(const config::ModelConfig& model, const Plan& p, bool fp32_running,
            Clock::time_point now) const;
  // Re-judged on evidence: when the last trial kept FP32 only because INT8 disagreed, and the live
  // checks, all of their window since that decision, find the same INT8 file agreeing with FP32
  // at least model.auto_min_map50 on enough boxes, the decision is dropped (and said so) and
  // next() measures again. At most once a window: the next re-judgment needs a whole window of
  // checks after the new decision. Returns whether it was dropped.
  bool rejudge(const Plan& p, const LiveAgreement& live, Clock::time_point now);
  // The trial of p.candidate starts: says so.
  void measuring(const Plan& p);
  // p.candidate cannot be loaded: FP32, decided.
  void cannot_load(const config::ModelConfig& model, const Plan& p, const std::string& error);
  // Called on the inference thread when the trial ends: only keeps the outcome.
  void hand_over(TrialOutcome outcome);
  // The outcome handed over since the last call, if any.
  std::optional<TrialOutcome> take_outcome();
  // Decides on a trial that ended, unless it was cancelled or measured models no longer wanted.
  // Returns the candidate when INT8 won, for the manager to swap in; else it is freed here.
  std::optional<LoadedModel> finish(const config::ModelConfig& model, const Plan& p,
                                    TrialOutcome outcome);

  // The pair the last trial chose INT8 for, if it did.
  std::optional<ModelPair> int8_chosen() const;
  // One phrase for the status line while a trial runs or, when `wanted` (precision is auto), the
  // last one could not decide; else "".
  std::string pending_summary(bool wanted) const;
  // Its state ("waiting for the INT8 model", "measuring", "decided", "undecided") and what the
  // last trial chose and why (detector::to_json).
  ModelStatus::Auto status() const;

 private:
  // What a trial decided for one pair of models.
  struct Decision {
    ModelPair pair;
    detector::PrecisionChoice choice;
    nlohmann::json json;
    // When an undecided trial is run again.
    Clock::time_point retry_at;
    Clock::time_point decided_at;
  };

  // FP32, decided, because p.candidate `what` ("cannot be loaded: ...").
  void fp32_because(const config::ModelConfig& model, const Plan& p, const std::string& what);
  // Records a decision and says it.
  void decide(const Plan& p, detector::PrecisionChoice choice, nlohmann::json json);

  Events& events_;
  mutable std::mutex mutex_;
  std::optional<Decision> decision_;
  // The INT8 model a trial under way measures.
  std::optional<ModelTarget> measuring_;
  std::optional<TrialOutcome> outcome_;
};

}  // namespace yolo::daemon
