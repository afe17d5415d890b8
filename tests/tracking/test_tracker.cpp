// SPDX-License-Identifier: Apache-2.0
// The tracker (tracking/tracker.cpp): association, confirmation, loss in seconds, ids.
#include "tracking/tracker.h"

#include <gtest/gtest.h>

#include <set>

#include "tests/tracking/synthetic.h"

namespace yolo::tracking {
namespace {

using test::at_seconds;
using test::default_tracking;

vision::Detection person(float cx, float cy, float score = 0.9f, int class_id = 0) {
  return {class_id, score, {cx - 20, cy - 45, cx + 20, cy + 45}};
}

const cv::Size kFrame{1280, 720};

TEST(Tracker, ATrackIsReportedOnlyOnceConfirmedAndKeepsItsId) {
  Tracker tracker(default_tracking());
  for (int i = 0; i < 2; ++i) {
    const TrackUpdate& u =
        tracker.update({person(100 + 5.0f * i, 300)}, at_seconds(i / 30.0), i, kFrame);
    EXPECT_TRUE(u.tracks.empty()) << "tentative at frame " << i;
  }
  const TrackUpdate& u = tracker.update({person(110, 300)}, at_seconds(2 / 30.0), 2, kFrame);
  ASSERT_EQ(u.tracks.size(), 1u);
  EXPECT_EQ(u.confirmed, (std::vector<std::int64_t>{u.tracks[0].id}));
  const std::int64_t id = u.tracks[0].id;
  for (int i = 3; i < 30; ++i) {
    const TrackUpdate& v =
        tracker.update({person(100 + 5.0f * i, 300)}, at_seconds(i / 30.0), i, kFrame);
    ASSERT_EQ(v.tracks.size(), 1u);
    EXPECT_EQ(v.tracks[0].id, id);
    EXPECT_TRUE(v.confirmed.empty());
    EXPECT_TRUE(v.tracks[0].seen);
  }
}

TEST(Tracker, ATentativeTrackUnseenForAQuarterSecondWasNoise) {
  Tracker tracker(default_tracking());
  tracker.update({person(100, 300)}, at_seconds(0), 0, kFrame);
  tracker.update({}, at_seconds(0.1), 1, kFrame);
  EXPECT_EQ(tracker.live_tracks(), 1u) << "a miss of one frame at 10 fps is forgiven";
  tracker.update({}, at_seconds(0.3), 2, kFrame);
  EXPECT_EQ(tracker.live_tracks(), 0u);
}

TEST(Tracker, KeepsItsIdThroughAnOcclusionOfOneSecond) {
  Tracker tracker(default_tracking());
  std::int64_t id = 0;
  for (int i = 0; i < 90; ++i) {
    const double t = i / 30.0;
    const float x = 100 + 150 * static_cast<float>(t);
    const bool hidden = t >= 1.0 && t < 2.0;
    const TrackUpdate& u =
        tracker.update(hidden ? vision::Detections{} : vision::Detections{person(x, 300)},
                       at_seconds(t), i, kFrame);
    if (i == 10) id = u.tracks.at(0).id;
    if (i > 10) {
      ASSERT_EQ(u.tracks.size(), 1u) << "frame " << i;
      EXPECT_EQ(u.tracks[0].id, id) << "frame " << i;
      EXPECT_EQ(u.tracks[0].seen, !hidden);
    }
  }
}

TEST(Tracker, LowScoreBoxesKeepATrackAliveButDoNotStartOne) {
  Tracker tracker(default_tracking());
  std::int64_t id = 0;
  for (int i = 0; i < 60; ++i) {
    const double t = i / 30.0;
    // Confident first, then the score dips under high_score (0.5) for a second, as a half-hidden
    // object's does.
    const float score = i < 15 || i >= 45 ? 0.9f : 0.3f;
    const TrackUpdate& u = tracker.update(
        {person(200 + 90 * static_cast<float>(t), 300, score), person(900, 500, 0.3f)},
        at_seconds(t), i, kFrame);
    if (i == 10) id = u.tracks.at(0).id;
    if (i > 10) {
      ASSERT_EQ(u.tracks.size(), 1u)
          << "frame " << i << ": the low-score box at 900 started a track";
      EXPECT_EQ(u.tracks[0].id, id);
      EXPECT_TRUE(u.tracks[0].seen) << "frame " << i << ": the low-score box was not matched";
    }
  }
}

TEST(Tracker, TwoObjectsCrossingKeepTheirIds) {
  Tracker tracker(default_tracking());
  std::int64_t left = 0, right = 0;
  for (int i = 0; i < 120; ++i) {
    const double t = i / 30.0;
    const float d = 200 * static_cast<float>(t);
    const TrackUpdate& u =
        tracker.update({person(200 + d, 300), person(1000 - d, 310)}, at_seconds(t), i, kFrame);
    if (i == 5) {
      ASSERT_EQ(u.tracks.size(), 2u);
      left = u.tracks[0].box.x1 < u.tracks[1].box.x1 ? u.tracks[0].id : u.tracks[1].id;
      right = left == u.tracks[0].id ? u.tracks[1].id : u.tracks[0].id;
    }
  }
  const TrackUpdate& u =
      tracker.update({person(200 + 800, 300), person(1000 - 800, 310)}, at_seconds(4), 120, kFrame);
  ASSERT_EQ(u.tracks.size(), 2u);
  // After crossing, the one that started at the left is now at the right.
  const Track& at_right = u.tracks[0].box.x1 > u.tracks[1].box.x1 ? u.tracks[0] : u.tracks[1];
  EXPECT_EQ(at_right.id, left);
  EXPECT_NE(at_right.id, right);
}

TEST(Tracker, ClassesNeverMatchEachOther) {
  Tracker tracker(default_tracking());
  for (int i = 0; i < 5; ++i) tracker.update({person(300, 300)}, at_seconds(i / 30.0), i, kFrame);
  // The same place, another class: a new (tentative) track, and the person's goes unseen.
  const TrackUpdate& u =
      tracker.update({person(300, 300, 0.9f, 2)}, at_seconds(5 / 30.0), 5, kFrame);
  ASSERT_EQ(u.tracks.size(), 1u);
  EXPECT_EQ(u.tracks[0].class_id, 0);
  EXPECT_FALSE(u.tracks[0].seen);
  EXPECT_EQ(tracker.live_tracks(), 2u);
}

TEST(Tracker, ALostTrackEndsAfterLostSecondsWhateverTheFrameRate) {
  for (double fps : {5.0, 10.0, 30.0}) {
    Tracker tracker(default_tracking());
    int frame = 0;
    double t = 0;
    for (; t < 1.0; t += 1 / fps)
      tracker.update({person(400, 300)}, at_seconds(t), frame++, kFrame);
    const double last_seen = t - 1 / fps;
    double ended_at = -1;
    for (; t < 5 && ended_at < 0; t += 1 / fps) {
      const TrackUpdate& u = tracker.update({}, at_seconds(t), frame++, kFrame);
      if (!u.ended.empty()) ended_at = t;
    }
    EXPECT_GT(ended_at - last_seen, 1.5) << fps << " fps";
    EXPECT_LE(ended_at - last_seen, 1.5 + 1 / fps + 1e-9) << fps << " fps";
  }
}

TEST(Tracker, AnotherFrameSizeEndsEveryTrack) {
  Tracker tracker(default_tracking());
  for (int i = 0; i < 5; ++i) {
    tracker.update({person(300, 300), person(800, 300)}, at_seconds(i / 30.0), i, kFrame);
  }
  const TrackUpdate& u = tracker.update({person(300, 300)}, at_seconds(0.2), 5, {640, 360});
  EXPECT_EQ(u.ended.size(), 2u);
  EXPECT_TRUE(u.tracks.empty());
}

TEST(Tracker, ClearEndsEveryTrackAtTheNextUpdateAndIdsAreNeverReused) {
  Tracker tracker(default_tracking());
  std::set<std::int64_t> ids;
  for (int i = 0; i < 5; ++i) {
    for (const Track& t :
         tracker.update({person(300, 300)}, at_seconds(i / 30.0), i, kFrame).tracks) {
      ids.insert(t.id);
    }
  }
  tracker.clear();
  const TrackUpdate& u = tracker.update({person(300, 300)}, at_seconds(0.2), 5, kFrame);
  ASSERT_EQ(u.ended.size(), 1u);
  EXPECT_TRUE(ids.contains(u.ended[0].id));
  for (int i = 6; i < 10; ++i) {
    for (const Track& t :
         tracker.update({person(300, 300)}, at_seconds(i / 30.0), i, kFrame).tracks) {
      EXPECT_FALSE(ids.contains(t.id)) << "id " << t.id << " reused";
    }
  }
}

TEST(Tracker, BestScoreVelocityAndTrail) {
  Tracker tracker(default_tracking());
  const TrackUpdate* u = nullptr;
  for (int i = 0; i < 90; ++i) {
    const float score = i == 40 ? 0.97f : 0.8f;
    u = &tracker.update({person(100 + 4.0f * i, 300, score)}, at_seconds(i / 30.0), i, kFrame);
  }
  ASSERT_EQ(u->tracks.size(), 1u);
  const Track& t = u->tracks[0];
  EXPECT_FLOAT_EQ(t.best_score, 0.97f);
  EXPECT_EQ(t.best_frame, 40);
  EXPECT_NEAR(t.best_box.x1, 100 + 4.0f * 40 - 20, 1e-3);
  EXPECT_NEAR(t.vx, 120, 10);
  EXPECT_NEAR(t.vy, 0, 10);
  // About two seconds of path, oldest first.
  ASSERT_GE(t.trail.size(), 50u);
  EXPECT_LE(t.trail.size(), 61u);
  EXPECT_LT(t.trail.front().x, t.trail.back().x);
}

}  // namespace
}  // namespace yolo::tracking
