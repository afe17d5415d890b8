// SPDX-License-Identifier: Apache-2.0
// PrecisionAuto: when precision auto measures INT8 against FP32, what a trial's figures decide,
// and when an undecided trial runs again (daemon/model/precision_auto.cpp). Trials are handed
// over as the inference thread would hand them; no model runs.
#include "daemon/model/precision_auto.h"

#include <gtest/gtest.h>

#include "tests/daemon/event_recorder.h"

namespace yolo::daemon {
namespace {

using namespace std::chrono_literals;
using Next = PrecisionAuto::Next;
using Clock = PrecisionAuto::Clock;

config::ModelConfig auto_config() {
  config::ModelConfig m;
  m.path = "/models/m.onnx";
  m.precision = config::Precision::kAuto;
  m.auto_min_map50 = 0.8;
  return m;
}

// FP32 running m.onnx, its INT8 file made.
Plan planned() {
  Plan p;
  p.fp32 = {"/models/m.onnx",
            config::Precision::kFp32,
            runtime::InputSize::fixed(320, 320),
            {},
            config::Decoder::kAuto};
  p.run = p.fp32;
  ModelTarget int8 = p.fp32;
  int8.file = "/int8/m.int8.onnx";
  int8.precision = config::Precision::kInt8;
  p.candidate = int8;
  return p;
}

// A trial at one thread count: `fp32_ms` and `int8_ms`, and INT8's agreement with FP32
// (none: FP32 found nothing to compare).
TrialOutcome measured(double fp32_ms, double int8_ms, std::optional<double> map50) {
  detector::TrialFigures f;
  f.fp32_ms = {{1, fp32_ms}};
  f.int8_ms = {{1, int8_ms}};
  f.agreement.images = 32;
  f.agreement.map50_judged = map50;
  return {f, {}, ""};
}

struct Fixture {
  Fixture() { events.add(&recorded); }

  // Starts a trial of the plan's candidate, as the manager does when next() says so.
  void measure(const Plan& p) {
    ASSERT_EQ(automatic.next(auto_config(), p, true, Clock::now()), Next::kMeasure);
    automatic.measuring(p);
  }
  // Hands `outcome` over as the inference thread does, and finishes the trial.
  std::optional<LoadedModel> end(const config::ModelConfig& model, const Plan& p,
                                 TrialOutcome outcome) {
    automatic.hand_over(std::move(outcome));
    std::optional<TrialOutcome> taken = automatic.take_outcome();
    EXPECT_TRUE(taken);
    EXPECT_FALSE(automatic.take_outcome());
    return automatic.finish(model, p, std::move(*taken));
  }
  std::string chosen_reason() const {
    const auto chosen = recorded.named("precision_chosen");
    return chosen.empty() ? "" : chosen.back()["reason"].get<std::string>();
  }

  Logger log{Logger::Sink::kStderr, config::LogLevel::kWarning};
  Events events{log};
  test::EventRecorder recorded;
  PrecisionAuto automatic{events};
};

TEST(PrecisionAuto, MeasuresOnceTheInt8FileExistsAndFp32Runs) {
  Fixture f;
  Plan p = planned();
  EXPECT_EQ(f.automatic.status().state, "waiting for the INT8 model");
  p.candidate.reset();
  EXPECT_EQ(f.automatic.next(auto_config(), p, true, Clock::now()), Next::kWait);
  p = planned();
  EXPECT_EQ(f.automatic.next(auto_config(), p, false, Clock::now()), Next::kWait);
  f.measure(p);
  EXPECT_EQ(f.recorded.count("precision_trial"), 1);
  EXPECT_EQ(f.recorded.named("precision_trial")[0]["message"],
            "precision auto: measuring m.onnx (fp32, 320x320) against m.int8.onnx (int8, 320x320) "
            "on this camera's frames");
  EXPECT_EQ(f.automatic.status().state, "measuring");
  EXPECT_EQ(f.automatic.pending_summary(false), "auto: measuring fp32 against int8");
  // One trial at a time.
  EXPECT_EQ(f.automatic.next(auto_config(), p, true, Clock::now()), Next::kWait);
}

TEST(PrecisionAuto, Int8FasterAndAgreeingWinsAndIsRunFromThenOn) {
  Fixture f;
  const Plan p = planned();
  f.measure(p);
  const std::optional<LoadedModel> int8 = f.end(auto_config(), p, measured(20, 10, 0.9));
  EXPECT_TRUE(int8);
  EXPECT_EQ(f.automatic.int8_chosen(), (ModelPair{p.fp32, *p.candidate}));
  EXPECT_EQ(f.recorded.named("precision_chosen")[0]["precision"], "int8");
  EXPECT_EQ(f.automatic.status().state, "decided");
  EXPECT_EQ(f.automatic.status().decision["precision"], "int8");
  EXPECT_EQ(f.automatic.pending_summary(true), "");
  // Decided: not measured again.
  EXPECT_EQ(f.automatic.next(auto_config(), p, true, Clock::now() + PrecisionAuto::kRetry * 10),
            Next::kWait);
}

TEST(PrecisionAuto, Int8NotFasterOrDisagreeingLeavesFp32Decided) {
  Fixture f;
  const Plan p = planned();
  f.measure(p);
  EXPECT_FALSE(f.end(auto_config(), p, measured(10, 10, 0.9)));
  EXPECT_FALSE(f.automatic.int8_chosen());
  EXPECT_EQ(f.chosen_reason().find("FP32: INT8 is not at least 1.05x faster"), 0u)
      << f.chosen_reason();

  // Other models: measured afresh.
  Plan other = planned();
  other.candidate->file = "/int8/other.int8.onnx";
  f.measure(other);
  EXPECT_FALSE(f.end(auto_config(), other, measured(20, 10, 0.5)));
  EXPECT_NE(f.chosen_reason().find("disagrees with FP32"), std::string::npos) << f.chosen_reason();
  EXPECT_EQ(f.automatic.status().state, "decided");
  EXPECT_EQ(f.automatic.next(auto_config(), other, true, Clock::now() + PrecisionAuto::kRetry),
            Next::kWait);
}

// FP32 kept because INT8 disagreed in the trial; the live checks, running FP32, find the same
// INT8 file agreeing over a whole window after that decision: measured again, once a window.
TEST(PrecisionAuto, LiveChecksThatFindInt8AgreeingReJudgeAnFp32Decision) {
  Fixture f;
  const Plan p = planned();
  f.measure(p);
  EXPECT_FALSE(f.end(auto_config(), p, measured(20, 10, 0.5)));
  const Clock::time_point decided = Clock::now();
  LiveAgreement live{p.candidate->file, 0.93, 120, 40, std::chrono::hours(1)};
  // Not a whole window after the decision yet: its checks are partly of another time.
  EXPECT_FALSE(f.automatic.rejudge(p, live, decided + 30min));
  // Under the floor, too few boxes, another INT8 file: no evidence.
  LiveAgreement low = live;
  low.agreement = 0.7;
  EXPECT_FALSE(f.automatic.rejudge(p, low, decided + 2h));
  LiveAgreement few = live;
  few.fp32_boxes = 4;
  EXPECT_FALSE(f.automatic.rejudge(p, few, decided + 2h));
  LiveAgreement other = live;
  other.int8 = "/int8/other.int8.onnx";
  EXPECT_FALSE(f.automatic.rejudge(p, other, decided + 2h));
  EXPECT_EQ(f.automatic.next(auto_config(), p, true, decided + 2h), Next::kWait);

  ASSERT_TRUE(f.automatic.rejudge(p, live, decided + 2h));
  const auto trials = f.recorded.named("precision_trial");
  EXPECT_NE(trials.back()["message"].get<std::string>().find(
                "the live checks find INT8 agreeing with FP32 (0.930 over 40 checks, 120 FP32 "
                "boxes) where the trial found 0.500 < 0.80: measuring again"),
            std::string::npos)
      << trials.back().dump();
  EXPECT_EQ(f.automatic.next(auto_config(), p, true, decided + 2h), Next::kMeasure);
  // The trial disagrees again: FP32, and no new re-judgment until a window has passed.
  f.measure(p);
  EXPECT_FALSE(f.end(auto_config(), p, measured(20, 10, 0.5)));
  EXPECT_FALSE(f.automatic.rejudge(p, live, Clock::now() + 10min));
}

TEST(PrecisionAuto, AnFp32DecisionForSpeedIsNotReJudgedOnAgreement) {
  Fixture f;
  const Plan p = planned();
  f.measure(p);
  EXPECT_FALSE(f.end(auto_config(), p, measured(10, 10, 0.95)));
  const LiveAgreement live{p.candidate->file, 0.99, 120, 40, std::chrono::hours(1)};
  EXPECT_FALSE(f.automatic.rejudge(p, live, Clock::now() + 2h));
}

TEST(PrecisionAuto, AnUndecidedTrialRunsAgainAfterTheRetryPeriod) {
  Fixture f;
  const Plan p = planned();
  f.measure(p);
  EXPECT_FALSE(f.end(auto_config(), p, measured(20, 10, std::nullopt)));
  EXPECT_EQ(f.automatic.status().state, "undecided");
  EXPECT_EQ(f.automatic.pending_summary(true),
            "auto: fp32 until something is detected to check int8 against");
  // Not pending when the config no longer asks for auto.
  EXPECT_EQ(f.automatic.pending_summary(false), "");
  const Clock::time_point now = Clock::now();
  EXPECT_EQ(f.automatic.next(auto_config(), p, true, now), Next::kWait);
  EXPECT_EQ(f.automatic.next(auto_config(), p, true, now + PrecisionAuto::kRetry - 1min),
            Next::kWait);
  EXPECT_EQ(f.automatic.next(auto_config(), p, true, now + PrecisionAuto::kRetry), Next::kMeasure);
}

TEST(PrecisionAuto, AnInt8ModelThatCannotLoadOrFailsOnAFrameLeavesFp32Decided) {
  Fixture f;
  const Plan p = planned();
  f.automatic.cannot_load(auto_config(), p, "not ONNX");
  EXPECT_EQ(f.chosen_reason(), "FP32: the INT8 model /int8/m.int8.onnx cannot be loaded: not ONNX");
  EXPECT_EQ(
      f.automatic.status().decision,
      nlohmann::json({{"precision", "fp32"}, {"decided", true}, {"reason", f.chosen_reason()}}));
  EXPECT_EQ(f.automatic.next(auto_config(), p, true, Clock::now() + PrecisionAuto::kRetry),
            Next::kWait);

  Plan other = planned();
  other.candidate->file = "/int8/other.int8.onnx";
  f.measure(other);
  EXPECT_FALSE(f.end(auto_config(), other, {std::nullopt, {}, "a shape mismatch"}));
  EXPECT_EQ(f.chosen_reason(),
            "FP32: the INT8 model /int8/other.int8.onnx failed on a frame: a shape mismatch");
  EXPECT_EQ(f.automatic.status().state, "decided");
}

TEST(PrecisionAuto, ACancelledTrialOrOneOfModelsNoLongerWantedDecidesNothing) {
  Fixture f;
  const Plan p = planned();
  f.measure(p);
  EXPECT_FALSE(f.end(auto_config(), p, {}));
  EXPECT_EQ(f.recorded.count("precision_chosen"), 0);
  EXPECT_EQ(f.automatic.status().state, "waiting for the INT8 model");

  // precision int8 now: the trial under way is cancelled, and its figures count for nothing.
  f.measure(p);
  config::ModelConfig int8 = auto_config();
  int8.precision = config::Precision::kInt8;
  EXPECT_EQ(f.automatic.next(int8, p, true, Clock::now()), Next::kCancel);
  EXPECT_FALSE(f.end(int8, p, measured(20, 10, 0.9)));
  EXPECT_EQ(f.recorded.count("precision_chosen"), 0);
  EXPECT_FALSE(f.automatic.int8_chosen());
  EXPECT_EQ(f.automatic.next(int8, p, true, Clock::now()), Next::kWait);
}

}  // namespace
}  // namespace yolo::daemon
