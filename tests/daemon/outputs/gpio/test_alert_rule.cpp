// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/gpio/alert_rule.h"

#include <gtest/gtest.h>

namespace yolo::daemon::gpio {
namespace {

using std::chrono::milliseconds;
using Clock = AlertRule::Clock;

const Clock::time_point t0 = Clock::time_point() + std::chrono::hours(1);

vision::Detections seen(int class_id, float score) {
  return {vision::Detection{class_id, score, {0, 0, 10, 10}}};
}

TEST(AlertRule, ActiveFromTheFirstSightingAndHeldAfterTheLast) {
  AlertRule rule({{0}, 0.5f, 1, milliseconds(3000), ""});
  EXPECT_FALSE(rule.active(t0));
  rule.observe(seen(0, 0.9f), t0);
  EXPECT_TRUE(rule.active(t0));
  rule.observe({}, t0 + milliseconds(100));
  EXPECT_TRUE(rule.active(t0 + milliseconds(2999)));
  EXPECT_EQ(rule.deadline(t0 + milliseconds(100)), t0 + milliseconds(3000));
  EXPECT_FALSE(rule.active(t0 + milliseconds(3000)));
  EXPECT_EQ(rule.deadline(t0 + milliseconds(3000)), std::nullopt);
}

TEST(AlertRule, EachSightingRestartsTheHold) {
  AlertRule rule({{}, 0.5f, 1, milliseconds(1000), ""});
  for (int i = 0; i < 5; ++i) rule.observe(seen(7, 0.6f), t0 + milliseconds(i * 800));
  rule.observe({}, t0 + milliseconds(4000));
  EXPECT_TRUE(rule.active(t0 + milliseconds(4100)));
  EXPECT_EQ(rule.deadline(t0 + milliseconds(4100)), t0 + milliseconds(3200 + 1000));
  EXPECT_FALSE(rule.active(t0 + milliseconds(4200)));
}

TEST(AlertRule, OnlyItsClassesAtItsScoreCount) {
  AlertRule rule({{0, 2}, 0.5f, 1, milliseconds(1000), ""});
  rule.observe(seen(1, 0.99f), t0);
  EXPECT_FALSE(rule.active(t0));
  rule.observe(seen(2, 0.49f), t0);
  EXPECT_FALSE(rule.active(t0));
  rule.observe({vision::Detection{1, 0.9f, {}}, vision::Detection{2, 0.5f, {}}}, t0);
  EXPECT_TRUE(rule.active(t0));
  // No classes: any class.
  AlertRule any({{}, 0.3f, 1, milliseconds(1000), ""});
  any.observe(seen(41, 0.3f), t0);
  EXPECT_TRUE(any.active(t0));
}

TEST(AlertRule, NeedsItsConsecutiveFrames) {
  AlertRule rule({{0}, 0.5f, 3, milliseconds(500), ""});
  const auto at = [](int frame) { return t0 + milliseconds(frame * 100); };
  rule.observe(seen(0, 0.9f), at(0));
  rule.observe(seen(0, 0.9f), at(1));
  rule.observe({}, at(2));  // the run breaks: it starts again
  rule.observe(seen(0, 0.9f), at(3));
  rule.observe(seen(0, 0.9f), at(4));
  EXPECT_FALSE(rule.active(at(4)));
  rule.observe(seen(0, 0.9f), at(5));
  EXPECT_TRUE(rule.active(at(5)));
  rule.observe({}, at(6));
  EXPECT_TRUE(rule.active(at(6)));
  EXPECT_FALSE(rule.active(at(5) + milliseconds(500)));
  // A new run needs its three frames again.
  rule.observe(seen(0, 0.9f), at(20));
  EXPECT_FALSE(rule.active(at(20)));
}

TEST(AlertRule, ASightingStandsUntilTheNextFrameWhenFramesAreSlowerThanTheHold) {
  // A Pi 4 at 640 pixels: a frame every ~400 ms, with a 100 ms hold.
  AlertRule rule({{0}, 0.5f, 1, milliseconds(100), ""});
  rule.observe(seen(0, 0.9f), t0);
  EXPECT_TRUE(rule.active(t0 + milliseconds(399)));
  rule.observe({}, t0 + milliseconds(400));
  EXPECT_FALSE(rule.active(t0 + milliseconds(400)));
  // Frames that stop coming (the camera lost) do not keep it on.
  rule.observe(seen(0, 0.9f), t0 + milliseconds(800));
  EXPECT_TRUE(rule.active(t0 + milliseconds(800) + AlertRule::kSightingStands - milliseconds(1)));
  EXPECT_FALSE(rule.active(t0 + milliseconds(800) + AlertRule::kSightingStands));
}

TEST(AlertRule, AZoneRuleIsActiveWhileTheZoneIsOccupiedAndHeldAfter) {
  AlertSpec spec{{0}, 0.5f, 1, milliseconds(1000), "gate"};
  AlertRule rule(spec);
  // Detections alone do not set a zone's rule off, nor another zone's occupancy.
  rule.observe(seen(0, 0.9f), t0, {{"door", 2}});
  EXPECT_FALSE(rule.active(t0));
  rule.observe({}, t0 + milliseconds(100), {{"gate", 0}, {"door", 1}});
  EXPECT_FALSE(rule.active(t0 + milliseconds(100)));
  // Someone in the gate (of a class the rule's classes do not name: the zone's own apply).
  rule.observe(seen(5, 0.2f), t0 + milliseconds(200), {{"gate", 1}});
  EXPECT_TRUE(rule.active(t0 + milliseconds(200)));
  rule.observe({}, t0 + milliseconds(300), {{"gate", 0}});
  // hold_ms after the last occupied frame, as for detections.
  EXPECT_EQ(rule.deadline(t0 + milliseconds(300)), t0 + milliseconds(200 + 1000));
  EXPECT_FALSE(rule.active(t0 + milliseconds(1200)));
  // Tracking off: no occupancy at all, nothing sighted.
  rule.observe(seen(0, 0.9f), t0 + milliseconds(1300));
  EXPECT_FALSE(rule.active(t0 + milliseconds(1300)));
}

TEST(AlertRule, AZoneRuleNeedsItsFramesInARowToo) {
  AlertSpec spec{{}, 0.5f, 3, milliseconds(500), "gate"};
  AlertRule rule(spec);
  const ZoneOccupancy in = {{"gate", 1}};
  rule.observe({}, t0, in);
  rule.observe({}, t0 + milliseconds(100), in);
  EXPECT_FALSE(rule.active(t0 + milliseconds(100)));
  rule.observe({}, t0 + milliseconds(200), in);
  EXPECT_TRUE(rule.active(t0 + milliseconds(200)));
}

}  // namespace
}  // namespace yolo::daemon::gpio
