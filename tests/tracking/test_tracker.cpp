// SPDX-License-Identifier: Apache-2.0
// The tracker (tracking/tracker.cpp): association, confirmation, loss in seconds, ids.
#include "tracking/tracker.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
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
  const TrackUpdate& u = tracker.update({}, at_seconds(0.3), 2, kFrame);
  EXPECT_EQ(tracker.live_tracks(), 0u);
  EXPECT_TRUE(u.tracks.empty());
  EXPECT_TRUE(u.ended.empty()) << "a track never confirmed is never reported, not even ending";
}

TEST(Tracker, ConfirmFramesOneConfirmsAtOnce) {
  config::TrackingConfig options = default_tracking();
  options.confirm_frames = 1;
  Tracker tracker(options);
  const TrackUpdate& u =
      tracker.update({person(100, 300), person(600, 300, 0.55f)}, at_seconds(0), 0, kFrame);
  // The box under new_score (0.6) starts nothing.
  ASSERT_EQ(u.tracks.size(), 1u);
  EXPECT_EQ(u.tracks[0].id, 1);
  EXPECT_EQ(u.confirmed, (std::vector<std::int64_t>{1}));
  EXPECT_TRUE(u.tracks[0].seen);
  EXPECT_EQ(u.tracks[0].hits, 1);
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
      // Unseen, its box is predicted on along its path.
      EXPECT_NEAR((u.tracks[0].box.x1 + u.tracks[0].box.x2) / 2, x, 15) << "frame " << i;
      EXPECT_TRUE(u.ended.empty());
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

TEST(Tracker, ALowScoreBoxMustOverlapByHalf) {
  // The second pass (low-score boxes) takes only boxes overlapping the track by IoU >= 0.5.
  Tracker tracker(default_tracking());
  for (int i = 0; i < 5; ++i) tracker.update({person(300, 300)}, at_seconds(i / 30.0), i, kFrame);
  // 20 px to the side of a 40 px wide box: IoU 1/3.
  const TrackUpdate& far =
      tracker.update({person(320, 300, 0.3f)}, at_seconds(5 / 30.0), 5, kFrame);
  ASSERT_EQ(far.tracks.size(), 1u);
  EXPECT_FALSE(far.tracks[0].seen);
  // 5 px to the side: IoU 0.78.
  const TrackUpdate& near =
      tracker.update({person(305, 300, 0.3f)}, at_seconds(6 / 30.0), 6, kFrame);
  ASSERT_EQ(near.tracks.size(), 1u);
  EXPECT_TRUE(near.tracks[0].seen);
  EXPECT_FLOAT_EQ(near.tracks[0].score, 0.3f);
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
  // The same walk (100 px/s, seen for a second, then gone) at 5, 10 and 30 fps ends lost_s (1.5 s)
  // after it was last seen: at the first frame past that, once, as it was last.
  for (double fps : {5.0, 10.0, 30.0}) {
    Tracker tracker(default_tracking());
    int frame = 0;
    double t = 0;
    for (; t < 1.0; t += 1 / fps) {
      tracker.update({person(100 + 100 * static_cast<float>(t), 300)}, at_seconds(t), frame++,
                     kFrame);
    }
    const double last_seen = t - 1 / fps;
    double ended_at = -1;
    for (; t < 5; t += 1 / fps) {
      const TrackUpdate& u = tracker.update({}, at_seconds(t), frame++, kFrame);
      if (u.ended.empty()) {
        if (ended_at < 0) {
          EXPECT_EQ(u.tracks.size(), 1u) << fps << " fps at " << t;
        }
        continue;
      }
      EXPECT_LT(ended_at, 0) << fps << " fps: ended twice";
      ended_at = t;
      ASSERT_EQ(u.ended.size(), 1u);
      EXPECT_TRUE(u.tracks.empty());
      EXPECT_FALSE(u.ended[0].seen);
      EXPECT_EQ(u.ended[0].last_seen, at_seconds(last_seen));
    }
    EXPECT_GT(ended_at - last_seen, 1.5) << fps << " fps";
    EXPECT_LE(ended_at - last_seen, 1.5 + 1 / fps + 1e-9) << fps << " fps";
    EXPECT_EQ(tracker.live_tracks(), 0u);
  }
}

TEST(Tracker, ConfigureKeepsTracksAndTheirIds) {
  Tracker tracker(default_tracking());
  std::int64_t id = 0;
  for (int i = 0; i < 5; ++i) {
    const TrackUpdate& u = tracker.update({person(300, 300)}, at_seconds(i / 30.0), i, kFrame);
    if (!u.tracks.empty()) id = u.tracks[0].id;
  }
  ASSERT_NE(id, 0);
  config::TrackingConfig shorter = default_tracking();
  shorter.lost_s = 0.5;
  tracker.configure(shorter);
  const TrackUpdate& kept = tracker.update({person(300, 300)}, at_seconds(5 / 30.0), 5, kFrame);
  ASSERT_EQ(kept.tracks.size(), 1u);
  EXPECT_EQ(kept.tracks[0].id, id);
  EXPECT_TRUE(kept.ended.empty());
  // The new lost_s holds from now on: unseen for 0.6 s, it ends.
  EXPECT_EQ(tracker.update({}, at_seconds(5 / 30.0 + 0.4), 6, kFrame).tracks.size(), 1u);
  EXPECT_EQ(tracker.update({}, at_seconds(5 / 30.0 + 0.6), 7, kFrame).ended.size(), 1u);
}

TEST(Tracker, AnotherFrameSizeEndsEveryTrack) {
  Tracker tracker(default_tracking());
  for (int i = 0; i < 5; ++i) {
    tracker.update({person(300, 300), person(800, 300)}, at_seconds(i / 30.0), i, kFrame);
  }
  // A tentative one too (seen once): it ends unreported.
  tracker.update({person(300, 300), person(800, 300), person(500, 600)}, at_seconds(5 / 30.0), 5,
                 kFrame);
  EXPECT_EQ(tracker.live_tracks(), 3u);
  const TrackUpdate& u = tracker.update({person(300, 300)}, at_seconds(0.2), 6, {640, 360});
  ASSERT_EQ(u.ended.size(), 2u);
  EXPECT_EQ(u.ended[0].id, 1);
  EXPECT_EQ(u.ended[1].id, 2);
  EXPECT_TRUE(u.tracks.empty());
  // The box at 300 starts a new track (id 4), not the old one's.
  EXPECT_EQ(tracker.live_tracks(), 1u);
  for (int i = 7; i < 9; ++i) {
    tracker.update({person(300, 300)}, at_seconds(i / 30.0), i, {640, 360});
  }
  const TrackUpdate& v = tracker.update({person(300, 300)}, at_seconds(0.3), 9, {640, 360});
  ASSERT_EQ(v.tracks.size(), 1u);
  EXPECT_EQ(v.tracks[0].id, 4);
  EXPECT_TRUE(v.ended.empty());
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
  // A tentative one beside it is dropped by clear() unreported.
  tracker.update({person(300, 300), person(900, 300)}, at_seconds(5 / 30.0), 5, kFrame);
  tracker.clear();
  EXPECT_EQ(tracker.live_tracks(), 0u);
  const TrackUpdate& u = tracker.update({person(300, 300)}, at_seconds(0.2), 6, kFrame);
  ASSERT_EQ(u.ended.size(), 1u);
  EXPECT_TRUE(ids.contains(u.ended[0].id));
  EXPECT_TRUE(tracker.update({person(300, 300)}, at_seconds(7 / 30.0), 7, kFrame).ended.empty())
      << "reported once";
  for (int i = 8; i < 12; ++i) {
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
  ASSERT_GE(t.trail.size(), 55u);
  EXPECT_LE(t.trail.size(), 60u);
  EXPECT_LT(t.trail.front().x, t.trail.back().x);
  EXPECT_NEAR(t.trail.back().x, (t.box.x1 + t.box.x2) / 2, 1e-3);
  EXPECT_NEAR(t.trail.front().x, 100 + 4.0f * (89 - static_cast<float>(t.trail.size()) + 1), 5);
}

TEST(Tracker, NothingGrowsOverAnHourOfFalseBoxesAndPassers) {
  // An hour at 10 fps: a false box somewhere each frame, a person crossing every 20 s.
  Tracker tracker(default_tracking());
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> x(50, 1230), y(50, 670);
  std::set<std::int64_t> ended;
  int passers = 0;
  std::size_t most_live = 0;
  for (int i = 0; i < 36000; ++i) {
    const double t = i / 10.0;
    vision::Detections boxes = {person(x(rng), y(rng), 0.7f)};
    const double walked = std::fmod(t, 20.0);
    if (walked < 10) boxes.push_back(person(100 + 100 * static_cast<float>(walked), 400));
    const TrackUpdate& u = tracker.update(boxes, at_seconds(t), i, kFrame);
    most_live = std::max(most_live, tracker.live_tracks());
    EXPECT_LE(u.tracks.size(), 2u);
    for (const Track& tr : u.ended) {
      EXPECT_TRUE(ended.insert(tr.id).second) << "ended twice";
      passers += tr.hits >= 90 && std::abs((tr.best_box.y1 + tr.best_box.y2) / 2 - 400) < 1 ? 1 : 0;
    }
    for (const Track& tr : u.tracks) EXPECT_LE(tr.trail.size(), 60u);
  }
  EXPECT_LE(most_live, 5u);
  EXPECT_EQ(passers, 180) << "one track per passer, seen all the way";
  // A false box confirmed takes three landing near each other within a quarter second (a
  // tentative track's box widened by 2 box sizes a second since it was seen, 20% at 10 fps):
  // about 27 an hour at one false box every frame.
  EXPECT_LE(ended.size(), 220u);
}

}  // namespace
}  // namespace yolo::tracking
