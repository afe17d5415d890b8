// SPDX-License-Identifier: Apache-2.0
#include "detector/drift_watch.h"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "text/format.h"

namespace yolo::detector {

namespace {

std::string figures(double agreement, double floor) {
  return "INT8's agreement with FP32 " + text::fixed(agreement, 3) +
         (agreement < floor ? " < " : " >= ") + text::fixed(floor, 3) + " (model.auto_min_map50)";
}

}  // namespace

std::string_view phase_name(DriftWatch::Phase phase) {
  // In the enum's order.
  constexpr std::array<std::string_view, 6> kNames{"agrees", "below",        "warned",
                                                   "fp32",   "requantizing", "waiting"};
  return kNames.at(static_cast<std::size_t>(phase));
}

std::string_view action_name(DriftAction action) {
  constexpr std::array<std::string_view, 3> kNames{"warn", "fp32", "requantize"};
  return kNames.at(static_cast<std::size_t>(action));
}

DriftWatch::DriftWatch(DriftOptions options) : options_(options) {
  if (!(options_.min_map50 >= 0 && options_.min_map50 <= 1)) {
    throw std::invalid_argument("the agreement floor is a number from 0 to 1");
  }
  if (options_.hold.count() <= 0 || options_.retry_wait.count() <= 0) {
    throw std::invalid_argument("drift needs a hold and a retry wait above 0 s");
  }
}

std::optional<DriftWatch::Clock::time_point> DriftWatch::retry_at() const {
  if (phase_ != Phase::kWaiting) return std::nullopt;
  return retry_at_;
}

DriftWatch::Verdict DriftWatch::update(Clock::time_point now, std::optional<double> agreement,
                                       long fp32_boxes) {
  // Too little evidence judges nothing, and changes no phase.
  if (!agreement || fp32_boxes < options_.min_fp32_boxes) return {};
  const bool below = *agreement < options_.min_map50;
  const std::string said = figures(*agreement, options_.min_map50);
  switch (phase_) {
    case Phase::kAgrees:
      if (below) {
        phase_ = Phase::kBelow;
        since_ = now;
        explanation_ = said + " since this check; acting (" +
                       std::string(action_name(options_.action)) + ") if it stays for " +
                       text::duration_text(options_.hold);
      }
      return {};
    case Phase::kBelow:
      if (!below) {
        phase_ = Phase::kAgrees;
        since_.reset();
        explanation_ = said;
        return {};
      }
      if (now - *since_ < options_.hold) return {};
      return act(now, *agreement);
    case Phase::kWarned:
    case Phase::kWaiting:
      // Back above the floor for `hold`: agrees again (a new episode may warn again; a wait for a
      // requantize ends, and the INT8 file runs again).
      if (below) {
        since_.reset();
      } else if (!since_) {
        since_ = now;
      } else if (now - *since_ >= options_.hold) {
        const bool was_waiting = phase_ == Phase::kWaiting;
        phase_ = Phase::kAgrees;
        since_.reset();
        failures_ = 0;
        explanation_ = said + " again for " + text::duration_text(options_.hold);
        return {Step::kAgreesAgain, explanation_ + (was_waiting ? ": INT8 runs again" : "")};
      }
      if (phase_ == Phase::kWaiting && below && now >= retry_at_) {
        phase_ = Phase::kRequantizing;
        explanation_ = said + ": making a new INT8 file again (try " +
                       std::to_string(failures_ + 1) + "); FP32 runs meanwhile";
        return {Step::kRequantize, explanation_};
      }
      return {};
    case Phase::kOnFp32:
    case Phase::kRequantizing:
      return {};
  }
  return {};
}

DriftWatch::Verdict DriftWatch::act(Clock::time_point now, double agreement) {
  const std::string why =
      figures(agreement, options_.min_map50) + " for " + text::duration_text(now - *since_);
  since_.reset();
  switch (options_.action) {
    case DriftAction::kWarn:
      phase_ = Phase::kWarned;
      explanation_ = why + ": only said (checks.drift_action: warn); the precision running stays";
      return {Step::kWarn, explanation_};
    case DriftAction::kFp32:
      phase_ = Phase::kOnFp32;
      explanation_ = why + ": switched to FP32 until the next reload (checks.drift_action: fp32)";
      return {Step::kSwitchToFp32, explanation_};
    case DriftAction::kRequantize:
      phase_ = Phase::kRequantizing;
      explanation_ = why + ": making a new INT8 file from the camera's frames; FP32 runs meanwhile";
      return {Step::kRequantize, explanation_};
  }
  return {};
}

void DriftWatch::requantized() {
  phase_ = Phase::kAgrees;
  since_.reset();
  failures_ = 0;
  explanation_ = "a new INT8 file made from the camera's frames passed its check and runs";
}

DriftWatch::Verdict DriftWatch::requantize_failed(Clock::time_point now, std::string_view why) {
  const auto wait = std::min<std::chrono::seconds>(
      options_.retry_wait * (1L << std::min(failures_, 16)), kLongestRetryWait);
  ++failures_;
  phase_ = Phase::kWaiting;
  since_.reset();
  retry_at_ = now + wait;
  explanation_ = "making a new INT8 file failed (" + std::string(why) +
                 "); FP32 runs, next try in " + text::duration_text(wait);
  return {Step::kNone, explanation_};
}

}  // namespace yolo::detector
