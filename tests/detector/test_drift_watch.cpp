// SPDX-License-Identifier: Apache-2.0
#include "detector/drift_watch.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace yolo::detector {
namespace {

using Clock = DriftWatch::Clock;
using Phase = DriftWatch::Phase;
using Step = DriftWatch::Step;
using std::chrono::hours;
using std::chrono::minutes;

DriftOptions options(DriftAction action) {
  DriftOptions o;
  o.min_map50 = 0.9;
  o.hold = minutes(10);
  o.action = action;
  o.min_fp32_boxes = 10;
  o.retry_wait = hours(1);
  return o;
}

// Feeds one check a minute from `from` for `count` minutes; returns the steps taken.
std::vector<Step> feed(DriftWatch& watch, Clock::time_point from, int count, double agreement,
                       long boxes = 100) {
  std::vector<Step> steps;
  for (int i = 0; i < count; ++i) {
    const Step s = watch.update(from + minutes(i), agreement, boxes).step;
    if (s != Step::kNone) steps.push_back(s);
  }
  return steps;
}

TEST(DriftWatch, ActsOnceWhenTheAgreementStaysUnderTheFloorForTheHold) {
  DriftWatch watch(options(DriftAction::kWarn));
  const Clock::time_point t0{};
  EXPECT_TRUE(feed(watch, t0, 30, 0.97).empty());
  EXPECT_EQ(watch.phase(), Phase::kAgrees);
  // Nine minutes under: not yet.
  EXPECT_TRUE(feed(watch, t0 + minutes(30), 10, 0.80).empty());
  EXPECT_EQ(watch.phase(), Phase::kBelow);
  // The tenth: one warning, and only one however long it stays.
  EXPECT_EQ(feed(watch, t0 + minutes(40), 60, 0.80), std::vector<Step>{Step::kWarn});
  EXPECT_EQ(watch.phase(), Phase::kWarned);
  EXPECT_NE(watch.explanation().find("0.800 < 0.900"), std::string::npos) << watch.explanation();
}

TEST(DriftWatch, ABriefDipOrTooFewBoxesIsNotDrift) {
  DriftWatch watch(options(DriftAction::kFp32));
  const Clock::time_point t0{};
  EXPECT_TRUE(feed(watch, t0, 5, 0.5).empty());
  EXPECT_TRUE(feed(watch, t0 + minutes(5), 1, 0.95).empty());
  EXPECT_EQ(watch.phase(), Phase::kAgrees);
  // An hour under the floor on 9 of FP32's boxes judges nothing.
  EXPECT_TRUE(feed(watch, t0 + minutes(6), 60, 0.1, 9).empty());
  EXPECT_EQ(watch.phase(), Phase::kAgrees);
  EXPECT_EQ(watch.update(t0 + hours(2), std::nullopt, 100).step, Step::kNone);
}

TEST(DriftWatch, AWarningIsGivenAgainOnlyAfterAgreeingForTheHold) {
  DriftWatch watch(options(DriftAction::kWarn));
  const Clock::time_point t0{};
  ASSERT_EQ(feed(watch, t0, 11, 0.8), std::vector<Step>{Step::kWarn});
  // Flickering around the floor does not end the episode.
  for (int i = 0; i < 6; ++i) {
    EXPECT_TRUE(feed(watch, t0 + minutes(11 + 10 * i), 5, 0.95).empty());
    EXPECT_TRUE(feed(watch, t0 + minutes(16 + 10 * i), 5, 0.85).empty());
  }
  EXPECT_EQ(feed(watch, t0 + hours(2), 11, 0.95), std::vector<Step>{Step::kAgreesAgain});
  EXPECT_EQ(feed(watch, t0 + hours(3), 11, 0.8), std::vector<Step>{Step::kWarn});
}

TEST(DriftWatch, Fp32StaysUntilTheNextReload) {
  DriftWatch watch(options(DriftAction::kFp32));
  const Clock::time_point t0{};
  EXPECT_EQ(feed(watch, t0, 11, 0.7), std::vector<Step>{Step::kSwitchToFp32});
  EXPECT_EQ(watch.phase(), Phase::kOnFp32);
  EXPECT_TRUE(feed(watch, t0 + minutes(11), 120, 0.99).empty());
  EXPECT_TRUE(feed(watch, t0 + hours(3), 120, 0.5).empty());
  EXPECT_EQ(watch.phase(), Phase::kOnFp32);
}

TEST(DriftWatch, AFailedRequantizeWaitsLongerEachTimeAndNeverLoops) {
  DriftWatch watch(options(DriftAction::kRequantize));
  const Clock::time_point t0{};
  ASSERT_EQ(feed(watch, t0, 11, 0.7), std::vector<Step>{Step::kRequantize});
  EXPECT_EQ(watch.phase(), Phase::kRequantizing);
  // Checks while it runs change nothing.
  EXPECT_TRUE(feed(watch, t0 + minutes(11), 30, 0.7).empty());
  watch.requantize_failed(t0 + minutes(41), "no space left on device");
  EXPECT_EQ(watch.phase(), Phase::kWaiting);
  EXPECT_EQ(*watch.retry_at(), t0 + minutes(41) + hours(1));
  EXPECT_NE(watch.explanation().find("no space left on device"), std::string::npos);
  EXPECT_NE(watch.explanation().find("next try in"), std::string::npos);
  // An hour of checks under the floor asks again exactly once, at the retry time.
  const std::vector<Step> first = feed(watch, t0 + minutes(42), 60, 0.7);
  EXPECT_EQ(first, std::vector<Step>{Step::kRequantize});
  watch.requantize_failed(t0 + minutes(102), "the quantizer refused the model");
  // The second wait is two hours, and so on up to a day.
  EXPECT_EQ(*watch.retry_at(), t0 + minutes(102) + hours(2));
  EXPECT_TRUE(feed(watch, t0 + minutes(103), 118, 0.7).empty());
  for (int i = 0; i < 20; ++i) watch.requantize_failed(t0 + hours(10), "again");
  EXPECT_EQ(*watch.retry_at(), t0 + hours(10) + kLongestRetryWait);
}

TEST(DriftWatch, ARequantizeThatPassesStartsOver) {
  DriftWatch watch(options(DriftAction::kRequantize));
  const Clock::time_point t0{};
  ASSERT_EQ(feed(watch, t0, 11, 0.7), std::vector<Step>{Step::kRequantize});
  watch.requantized();
  EXPECT_EQ(watch.phase(), Phase::kAgrees);
  EXPECT_FALSE(watch.retry_at().has_value());
  EXPECT_TRUE(feed(watch, t0 + minutes(20), 60, 0.95).empty());
}

TEST(DriftWatch, WhileWaitingAnAgreementThatHoldsEndsTheWait) {
  DriftWatch watch(options(DriftAction::kRequantize));
  const Clock::time_point t0{};
  ASSERT_EQ(feed(watch, t0, 11, 0.7), std::vector<Step>{Step::kRequantize});
  watch.requantize_failed(t0 + minutes(20), "disk full");
  EXPECT_EQ(feed(watch, t0 + minutes(21), 11, 0.95), std::vector<Step>{Step::kAgreesAgain});
  EXPECT_EQ(watch.phase(), Phase::kAgrees);
}

TEST(DriftWatch, OptionsOutOfRangeAreRefused) {
  DriftOptions o = options(DriftAction::kWarn);
  o.min_map50 = 1.5;
  EXPECT_THROW(DriftWatch{o}, std::invalid_argument);
  o = options(DriftAction::kWarn);
  o.hold = std::chrono::seconds(0);
  EXPECT_THROW(DriftWatch{o}, std::invalid_argument);
}

}  // namespace
}  // namespace yolo::detector
