// SPDX-License-Identifier: Apache-2.0
// LabelTracker: the debounce of what is seen, on a clock the test sets
// (daemon/core/label_tracker.cpp).
#include "daemon/core/label_tracker.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace yolo::daemon {
namespace {

using namespace std::chrono_literals;
using Changes = std::vector<LabelChange>;
using Counts = std::map<std::string, int>;

const LabelTracker::Clock::time_point t0{};

TEST(LabelTracker, ALabelAppearsAtOnceAndDisappearsAfterTheHold) {
  LabelTracker tracker(2s);
  EXPECT_EQ(tracker.add({{"bird", 1}}, t0), (Changes{{"bird", 0, 1}}));
  EXPECT_TRUE(tracker.present("bird"));
  EXPECT_EQ(tracker.next_expiry(), t0 + 2s);
  // Unseen for less than the hold: still there.
  EXPECT_EQ(tracker.add({}, t0 + 1s), Changes{});
  EXPECT_EQ(tracker.add({}, t0 + 1999ms), Changes{});
  EXPECT_TRUE(tracker.present("bird"));
  // A sighting restarts the hold.
  EXPECT_EQ(tracker.add({{"bird", 1}}, t0 + 1500ms), Changes{});
  EXPECT_EQ(tracker.add({}, t0 + 3400ms), Changes{});
  EXPECT_EQ(tracker.add({}, t0 + 3500ms), (Changes{{"bird", 1, 0}}));
  EXPECT_FALSE(tracker.present("bird"));
  EXPECT_EQ(tracker.next_expiry(), std::nullopt);
  EXPECT_TRUE(tracker.counts().empty());
}

TEST(LabelTracker, ACountRisesAtOnceAndFallsOnlyAfterTheHold) {
  LabelTracker tracker(1s);
  tracker.add({{"bird", 2}}, t0);
  EXPECT_EQ(tracker.add({{"bird", 3}}, t0 + 100ms), (Changes{{"bird", 2, 3}}));
  // Back to 2: reported as 3 until 3 was last seen a hold ago.
  EXPECT_EQ(tracker.add({{"bird", 2}}, t0 + 200ms), Changes{});
  EXPECT_EQ(tracker.counts(), (Counts{{"bird", 3}}));
  EXPECT_EQ(tracker.add({{"bird", 2}}, t0 + 1099ms), Changes{});
  EXPECT_EQ(tracker.add({{"bird", 2}}, t0 + 1100ms), (Changes{{"bird", 3, 2}}));
  EXPECT_EQ(tracker.counts(), (Counts{{"bird", 2}}));
}

TEST(LabelTracker, AFlickeringCountGivesAtMostOneRiseAndOneFallPerHold) {
  LabelTracker tracker(1s);
  int events = 0;
  // 30 frames a second for 3 s, the count jumping between 2 and 3 every other frame, then 2.
  for (int frame = 0; frame < 90; ++frame) {
    const int count = frame % 2 == 0 ? 2 : 3;
    events += static_cast<int>(tracker.add({{"bird", count}}, t0 + frame * 33ms).size());
  }
  EXPECT_EQ(events, 2) << "appear at 2, rise to 3";
  for (int frame = 90; frame < 150; ++frame) {
    events += static_cast<int>(tracker.add({{"bird", 2}}, t0 + frame * 33ms).size());
  }
  EXPECT_EQ(events, 3) << "and one fall back to 2 a hold after the last 3";
  // A dip for one frame gives nothing.
  events += static_cast<int>(tracker.add({{"bird", 1}}, t0 + 150 * 33ms).size());
  events += static_cast<int>(tracker.add({}, t0 + 151 * 33ms).size());
  events += static_cast<int>(tracker.add({{"bird", 2}}, t0 + 152 * 33ms).size());
  EXPECT_EQ(events, 3);
}

TEST(LabelTracker, LabelsAreTrackedApartAndReportedInOrder) {
  LabelTracker tracker(1s);
  EXPECT_EQ(tracker.add({{"person", 1}, {"car", 2}}, t0),
            (Changes{{"car", 0, 2}, {"person", 0, 1}}));
  EXPECT_EQ(tracker.add({{"person", 1}}, t0 + 600ms), Changes{});
  EXPECT_EQ(tracker.next_expiry(), t0 + 1s);
  EXPECT_EQ(tracker.add({{"person", 1}, {"dog", 1}}, t0 + 1200ms),
            (Changes{{"car", 2, 0}, {"dog", 0, 1}}));
  EXPECT_EQ(tracker.counts(), (Counts{{"dog", 1}, {"person", 1}}));
}

TEST(LabelTracker, ExpireWithoutFramesEndsWhatWentUnseen) {
  LabelTracker tracker(2s);
  tracker.add({{"bird", 1}, {"cat", 1}}, t0);
  tracker.add({{"cat", 1}}, t0 + 1s);
  EXPECT_EQ(tracker.expire(t0 + 1500ms), Changes{});
  EXPECT_EQ(tracker.expire(t0 + 2s), (Changes{{"bird", 1, 0}}));
  EXPECT_EQ(tracker.next_expiry(), t0 + 3s);
  EXPECT_EQ(tracker.expire(t0 + 3s), (Changes{{"cat", 1, 0}}));
}

// The outputs' clock: while frames come, add() expires; once they stop for kStalledAfter, the
// labels end on the clock.
TEST(LabelTracker, LabelsExpireOnTheClockOnlyOnceTheSourceStalled) {
  LabelTracker tracker(1s);
  tracker.add({{"bird", 1}}, t0);
  tracker.add({}, t0 + 500ms);
  // Past the hold but frames came 0.5 s before: not stalled yet.
  EXPECT_EQ(tracker.expire_if_stalled(t0 + 1500ms), Changes{});
  EXPECT_EQ(tracker.next_stalled_expiry(), t0 + 500ms + LabelTracker::kStalledAfter);
  EXPECT_EQ(tracker.expire_if_stalled(t0 + 500ms + LabelTracker::kStalledAfter),
            (Changes{{"bird", 1, 0}}));
  EXPECT_EQ(tracker.next_stalled_expiry(), std::nullopt);
  // A frame restarts the stall clock: its labels end no sooner than kStalledAfter after it.
  tracker.add({{"cat", 1}}, t0 + 10s);
  EXPECT_EQ(tracker.next_stalled_expiry(), t0 + 10s + LabelTracker::kStalledAfter);
}

TEST(LabelTracker, AZeroHoldReportsEveryFramesCounts) {
  LabelTracker tracker(0s);
  EXPECT_EQ(tracker.add({{"bird", 2}}, t0), (Changes{{"bird", 0, 2}}));
  EXPECT_EQ(tracker.add({{"bird", 1}}, t0 + 10ms), (Changes{{"bird", 2, 1}}));
  EXPECT_EQ(tracker.add({}, t0 + 20ms), (Changes{{"bird", 1, 0}}));
  // A longer hold applies from the next frame.
  tracker.set_hold(1s);
  tracker.add({{"bird", 2}}, t0 + 30ms);
  EXPECT_EQ(tracker.add({}, t0 + 40ms), Changes{});
}

// Two cameras whose frames come in turns: without a hold, one camera's frame without a person
// must not end the other's person (it would report a change at every frame), and the reported
// count is the sum of the cameras'.
TEST(CameraLabels, CamerasInTurnsSumAndNeverEndEachOthersSightings) {
  CameraLabels labels{CameraLabels::Clock::duration::zero()};
  EXPECT_EQ(labels.add("door", {{"person", 1}}, t0), (Changes{{"person", 0, 1}}));
  EXPECT_EQ(labels.add("yard", {}, t0 + 10ms), Changes{});
  EXPECT_EQ(labels.add("door", {{"person", 1}}, t0 + 20ms), Changes{});
  EXPECT_EQ(labels.add("yard", {{"person", 2}, {"dog", 1}}, t0 + 30ms),
            (Changes{{"dog", 0, 1}, {"person", 1, 3}}));
  EXPECT_EQ(labels.counts(), (Counts{{"dog", 1}, {"person", 3}}));
  EXPECT_TRUE(labels.present("dog"));
  EXPECT_EQ(labels.add("door", {}, t0 + 40ms), (Changes{{"person", 3, 2}}));
  EXPECT_EQ(labels.add("yard", {}, t0 + 50ms), (Changes{{"dog", 1, 0}, {"person", 2, 0}}));
  EXPECT_FALSE(labels.present("person"));
}

// With a hold, a camera that stalls has its labels expire on the clock while the other's go on.
TEST(CameraLabels, AStalledCameraExpiresAloneWithAHold) {
  CameraLabels labels{std::chrono::seconds(1)};
  labels.add("door", {{"person", 1}}, t0);
  labels.add("yard", {{"car", 1}}, t0);
  // The yard goes on seeing its car; the door gives no frame after t0.
  for (int i = 1; i <= 40; ++i) labels.add("yard", {{"car", 1}}, t0 + i * 100ms);
  const auto expiry = labels.next_stalled_expiry();
  ASSERT_TRUE(expiry);
  EXPECT_EQ(labels.expire_if_stalled(t0 + 4100ms), (Changes{{"person", 1, 0}}));
  EXPECT_EQ(labels.counts(), (Counts{{"car", 1}}));
}

}  // namespace
}  // namespace yolo::daemon
