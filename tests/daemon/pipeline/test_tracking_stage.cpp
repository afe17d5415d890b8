// SPDX-License-Identifier: Apache-2.0
// The tracking stage (daemon/pipeline/tracking_stage.cpp): detections into numbered events and a
// shared scene state on each result, outputs seeing only what is above detect.conf, resets from
// another thread applied at the next frame, tracks ended by time while no frame comes.
#include "daemon/pipeline/tracking_stage.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace yolo::daemon {
namespace {

using namespace std::chrono_literals;

config::Config config_with_line() {
  config::Config c;
  c.lines.push_back({.name = "road",
                     .camera = "main",
                     .from = {0.05, 0.5},
                     .to = {0.95, 0.5},
                     .in = tracking::Side::kBelow,
                     .classes = {},
                     .anchor = tracking::Anchor::kBottomCenter,
                     .hysteresis = 0.01});
  return c;
}

// Frame `i` of a car driving down through the line at x 300.
FrameResult frame(std::int64_t i, const std::shared_ptr<const ModelInfo>& model,
                  vision::Detections& all) {
  FrameResult r;
  r.index = i;
  r.captured = std::chrono::steady_clock::time_point(std::chrono::milliseconds(100 * i));
  r.scene_time = r.captured;
  r.wall = std::chrono::system_clock::now();
  r.model = model;
  const float bottom = 200 + 20.0f * static_cast<float>(i);
  all = {{2, 0.8f, {260, bottom - 80, 340, bottom}}};
  return r;
}

TEST(TrackingStage, NumbersEventsSharesTheSceneAndAppliesResetsAtTheNextFrame) {
  EventLog log(100);
  TrackingStage stage(log, "main");
  stage.configure(tracking_settings(config_with_line(), "main"));
  ASSERT_TRUE(stage.enabled());
  auto model = std::make_shared<ModelInfo>();
  model->names = vision::ClassNames({"person", "bicycle", "car"});
  std::shared_ptr<const SceneState> last;
  for (std::int64_t i = 0; i < 20; ++i) {
    vision::Detections all;
    FrameResult r = frame(i, model, all);
    stage.process(r, all, {1280, 720});
    ASSERT_TRUE(r.scene);
    if (last && last->version == r.scene->version) {
      EXPECT_EQ(last, r.scene) << "an unchanged scene is shared, not copied";
    }
    last = r.scene;
  }
  const auto events = log.since(0, 100).events;
  ASSERT_GE(events.size(), 2u);
  EXPECT_EQ(events[0].id, 1);
  EXPECT_EQ(events[0].kind, tracking::ObjectEventKind::kNew);
  EXPECT_EQ(log.last_id(), static_cast<std::int64_t>(events.size()));
  ASSERT_EQ(last->counts.places.size(), 1u);
  EXPECT_EQ(last->counts.places[0].total.at("car").in, 1);

  // A reset asked from another thread shows in the next frame's scene state, even when nothing
  // else changed in that frame.
  EXPECT_FALSE(stage.request_reset("nowhere"));
  EXPECT_TRUE(stage.request_reset("road"));
  vision::Detections all;
  FrameResult r = frame(20, model, all);
  stage.process(r, all, {1280, 720});
  ASSERT_TRUE(r.scene);
  EXPECT_GT(r.scene->version, last->version);
  EXPECT_TRUE(r.scene->counts.places[0].total.empty());
}

TEST(TrackingStage, IdsGoOnAcrossAReloadThatKeepsTheModel) {
  EventLog log(100);
  TrackingStage stage(log, "main");
  stage.configure(tracking_settings(config_with_line(), "main"));
  auto model = std::make_shared<ModelInfo>();
  model->names = vision::ClassNames({"person", "bicycle", "car"});
  std::int64_t id = 0;
  for (std::int64_t i = 0; i < 6; ++i) {
    vision::Detections all;
    FrameResult r = frame(i, model, all);
    stage.process(r, all, {1280, 720});
    if (!r.tracks.empty()) id = r.tracks[0].id;
  }
  ASSERT_NE(id, 0);
  config::Config changed = config_with_line();
  changed.tracking.lost_s = 3;
  stage.configure(tracking_settings(changed, "main"));
  vision::Detections all;
  FrameResult r = frame(6, model, all);
  stage.process(r, all, {1280, 720});
  ASSERT_EQ(r.tracks.size(), 1u);
  EXPECT_EQ(r.tracks[0].id, id);
}

TEST(TrackingStage, TracksEndByTimeAndResetsApplyWhileNoFrameComes) {
  config::Config c;
  c.tracking.lost_s = 1.0;
  c.zones.push_back({.name = "yard",
                     .camera = "main",
                     .points = {{0.0, 0.0}, {1.0, 0.0}, {1.0, 1.0}, {0.0, 1.0}},
                     .classes = {},
                     .anchor = tracking::Anchor::kBottomCenter,
                     .loiter_s = 0,
                     .inertia_s = 0});
  EventLog log(100);
  TrackingStage stage(log, "main");
  stage.configure(tracking_settings(c, "main"));
  auto model = std::make_shared<ModelInfo>();
  model->names = vision::ClassNames({"person", "bicycle", "car"});
  // A car parked in the yard, seen for a second; then the camera stops.
  const auto t0 = std::chrono::steady_clock::now();
  std::shared_ptr<const SceneState> scene;
  for (std::int64_t i = 0; i < 10; ++i) {
    FrameResult r;
    r.index = i;
    r.captured = r.scene_time = t0 + 100ms * i;
    r.wall = std::chrono::system_clock::now();
    r.model = model;
    stage.process(r, {{2, 0.9f, {400, 300, 600, 420}}}, {1280, 720});
    scene = r.scene;
  }
  ASSERT_EQ(scene->occupancy.at("yard"), 1);
  const auto last = t0 + 900ms;

  FrameResult early;
  EXPECT_FALSE(stage.idle(early, last + 500ms)) << "not gone for lost_s yet";
  FrameResult late;
  late.model = model;
  late.wall = std::chrono::system_clock::now();
  ASSERT_TRUE(stage.idle(late, last + 1500ms));
  EXPECT_TRUE(late.frameless);
  EXPECT_TRUE(late.tracks.empty());
  std::vector<tracking::ObjectEventKind> kinds;
  for (const auto& e : late.object_events) kinds.push_back(e.kind);
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), tracking::ObjectEventKind::kLeave), kinds.end());
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), tracking::ObjectEventKind::kEnd), kinds.end());
  ASSERT_TRUE(late.scene);
  EXPECT_EQ(late.scene->occupancy.at("yard"), 0);
  // Nothing more to end: no more results while the camera stays away.
  FrameResult after;
  EXPECT_FALSE(stage.idle(after, last + 3s));
  // But a reset asked meanwhile applies at once.
  ASSERT_TRUE(stage.request_reset("yard"));
  FrameResult reset;
  reset.wall = std::chrono::system_clock::now();
  ASSERT_TRUE(stage.idle(reset, last + 3500ms));
  ASSERT_TRUE(reset.scene);
  EXPECT_GT(reset.scene->version, late.scene->version);
  EXPECT_TRUE(reset.scene->counts.places.at(0).total.empty());
}

}  // namespace
}  // namespace yolo::daemon
