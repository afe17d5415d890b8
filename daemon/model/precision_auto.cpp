// SPDX-License-Identifier: Apache-2.0
#include "daemon/model/precision_auto.h"

#include <utility>

#include "text/format.h"

namespace yolo::daemon {

PrecisionAuto::PrecisionAuto(Events& events) : events_(events) {}

PrecisionAuto::Next PrecisionAuto::next(const config::ModelConfig& model, const Plan& p,
                                        bool fp32_running, Clock::time_point now) const {
  std::lock_guard lock(mutex_);
  if (model.precision != config::Precision::kAuto || !p.candidate) {
    // Auto was dropped, or its INT8 file is gone: the trial measures nothing wanted any more.
    return measuring_ ? Next::kCancel : Next::kWait;
  }
  if (measuring_) return Next::kWait;
  const bool known = decision_ && decision_->pair == ModelPair{p.fp32, *p.candidate};
  if (known && (decision_->choice.decided || now < decision_->retry_at)) return Next::kWait;
  return fp32_running ? Next::kMeasure : Next::kWait;
}

bool PrecisionAuto::rejudge(const Plan& p, const LiveAgreement& live, Clock::time_point now) {
  std::string said;
  {
    std::lock_guard lock(mutex_);
    if (measuring_ || !decision_ || !p.candidate || live.int8 != p.candidate->file) return false;
    const detector::PrecisionChoice& c = decision_->choice;
    const bool fp32_for_agreement = decision_->pair == ModelPair{p.fp32, *p.candidate} &&
                                    c.decided && c.precision == runtime::Precision::kFp32 &&
                                    c.map50 && *c.map50 < c.min_map50 &&
                                    c.speedup >= detector::kMinInt8Speedup;
    if (!fp32_for_agreement || !live.agreement || *live.agreement < c.min_map50 ||
        live.fp32_boxes < vision::kMinJudgedBoxes || now - decision_->decided_at < live.window) {
      return false;
    }
    said = "precision auto: the live checks find INT8 agreeing with FP32 (" +
           text::fixed(*live.agreement, 3) + " over " + std::to_string(live.checks) + " checks, " +
           std::to_string(live.fp32_boxes) + " FP32 boxes) where the trial found " +
           text::fixed(*c.map50, 3) + " < " + text::fixed(c.min_map50, 2) + ": measuring again";
    decision_.reset();
  }
  events_.emit(config::LogLevel::kInfo, fieldlog::EventKind::kPrecisionTrial, said,
               {{"int8", live.int8.string()}, {"live_agreement", *live.agreement}});
  return true;
}

void PrecisionAuto::measuring(const Plan& p) {
  events_.emit(config::LogLevel::kInfo, fieldlog::EventKind::kPrecisionTrial,
               "precision auto: measuring " + describe(p.fp32) + " against " +
                   describe(*p.candidate) + " on this camera's frames",
               {{runtime::precision_name(runtime::Precision::kFp32), p.fp32.file.string()},
                {runtime::precision_name(runtime::Precision::kInt8), p.candidate->file.string()}});
  std::lock_guard lock(mutex_);
  measuring_ = *p.candidate;
}

void PrecisionAuto::cannot_load(const config::ModelConfig& model, const Plan& p,
                                const std::string& error) {
  fp32_because(model, p, "cannot be loaded: " + error);
}

void PrecisionAuto::hand_over(TrialOutcome outcome) {
  std::lock_guard lock(mutex_);
  outcome_ = std::move(outcome);
}

std::optional<TrialOutcome> PrecisionAuto::take_outcome() {
  std::lock_guard lock(mutex_);
  return std::exchange(outcome_, std::nullopt);
}

std::optional<LoadedModel> PrecisionAuto::finish(const config::ModelConfig& model, const Plan& p,
                                                 TrialOutcome outcome) {
  std::optional<ModelTarget> measured;
  {
    std::lock_guard lock(mutex_);
    measured = std::exchange(measuring_, std::nullopt);
  }
  const bool cancelled = !outcome.figures && outcome.error.empty();
  const bool stale =
      model.precision != config::Precision::kAuto || !p.candidate || measured != p.candidate;
  if (cancelled || stale) return std::nullopt;
  if (!outcome.error.empty()) {
    fp32_because(model, p, "failed on a frame: " + outcome.error);
    return std::nullopt;
  }
  detector::PrecisionChoice choice =
      detector::choose_precision(*outcome.figures, model.auto_min_map50);
  nlohmann::json json = detector::to_json(choice, *outcome.figures);
  const bool int8 = choice.precision == runtime::Precision::kInt8;
  decide(p, std::move(choice), std::move(json));
  if (!int8) return std::nullopt;
  return std::move(outcome.candidate);
}

void PrecisionAuto::fp32_because(const config::ModelConfig& model, const Plan& p,
                                 const std::string& what) {
  detector::PrecisionChoice choice;
  choice.min_map50 = model.auto_min_map50;
  choice.reason = "FP32: the INT8 model " + p.candidate->file.string() + " " + what;
  nlohmann::json json = {{"precision", runtime::precision_name(runtime::Precision::kFp32)},
                         {"decided", true},
                         {"reason", choice.reason}};
  decide(p, std::move(choice), std::move(json));
}

void PrecisionAuto::decide(const Plan& p, detector::PrecisionChoice choice, nlohmann::json json) {
  events_.emit(config::LogLevel::kInfo, fieldlog::EventKind::kPrecisionChosen,
               "precision auto: " + choice.reason, json);
  std::lock_guard lock(mutex_);
  const Clock::time_point now = Clock::now();
  decision_ =
      Decision{{p.fp32, *p.candidate}, std::move(choice), std::move(json), now + kRetry, now};
}

std::optional<ModelPair> PrecisionAuto::int8_chosen() const {
  std::lock_guard lock(mutex_);
  if (!decision_ || decision_->choice.precision != runtime::Precision::kInt8) return std::nullopt;
  return decision_->pair;
}

std::string PrecisionAuto::pending_summary(bool wanted) const {
  std::lock_guard lock(mutex_);
  if (measuring_) return "auto: measuring fp32 against int8";
  if (wanted && decision_ && !decision_->choice.decided) {
    return "auto: fp32 until something is detected to check int8 against";
  }
  return "";
}

ModelStatus::Auto PrecisionAuto::status() const {
  std::lock_guard lock(mutex_);
  ModelStatus::Auto a;
  if (measuring_) {
    a.state = "measuring";
  } else if (decision_) {
    a.state = decision_->choice.decided ? "decided" : "undecided";
  } else {
    a.state = "waiting for the INT8 model";
  }
  if (decision_) a.decision = decision_->json;
  return a;
}

}  // namespace yolo::daemon
