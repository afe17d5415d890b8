// SPDX-License-Identifier: Apache-2.0
// What a person watching sees (daemon/core/annotated_frame.cpp): the detections as
// vision::annotate draws them, the scene as tracking::draw_scene draws it over them, the status
// line on top with labels kept out from under it; nothing of a result without a model.
#include "daemon/core/annotated_frame.h"

#include <gtest/gtest.h>

#include <opencv2/core.hpp>

#include "tracking/draw.h"
#include "vision/annotate.h"

namespace yolo::daemon {
namespace {

constexpr std::string_view kStatus = "INT8 2 threads 14.2 FPS 52C";

cv::Mat grey() {
  return cv::Mat(480, 640, CV_8UC3, cv::Scalar(40, 40, 40));
}

bool same(const cv::Mat& a, const cv::Mat& b) {
  return cv::norm(a, b, cv::NORM_L1) == 0;
}

// A person at the top left, where a status line goes.
FrameResult with_a_person() {
  auto model = std::make_shared<ModelInfo>();
  model->names = vision::ClassNames({"person", "car"});
  FrameResult r;
  r.model = model;
  r.detections = {{.class_id = 0, .score = 0.87f, .box = {20, 4, 200, 300}}};
  return r;
}

std::shared_ptr<const SceneState> a_zone() {
  auto scene = std::make_shared<SceneState>();
  scene->camera = "main";
  scene->zones = {{.name = "gate",
                   .camera = "main",
                   .points = {{0.6, 0.6}, {0.9, 0.6}, {0.9, 0.9}, {0.6, 0.9}},
                   .classes = {},
                   .anchor = tracking::Anchor::kBottomCenter,
                   .loiter_s = 0,
                   .inertia_s = 0}};
  scene->occupancy = {{"gate", 1}};
  return scene;
}

TEST(AnnotatedFrame, AResultWithoutAModelDrawsNothingButTheStatus) {
  FrameResult r = with_a_person();
  r.model = nullptr;
  r.scene = a_zone();
  cv::Mat frame = grey();
  draw_result(frame, r);
  EXPECT_TRUE(same(frame, grey())) << "no model: no names to draw the boxes with";

  draw_result(frame, r, kStatus);
  cv::Mat expected = grey();
  vision::draw_status(expected, kStatus);
  EXPECT_TRUE(same(frame, expected));
  const cv::Rect band = vision::status_band(frame, kStatus);
  EXPECT_FALSE(same(frame(band), grey()(band))) << "the status band is drawn";
}

TEST(AnnotatedFrame, TheDetectionsAsAnnotateDrawsThem) {
  const FrameResult r = with_a_person();
  cv::Mat frame = grey();
  draw_result(frame, r);
  EXPECT_FALSE(same(frame, grey()));
  cv::Mat expected = grey();
  vision::annotate(expected, r.detections, r.model->names);
  EXPECT_TRUE(same(frame, expected));
  const cv::Rect far{400, 350, 200, 100};
  EXPECT_TRUE(same(frame(far), grey()(far))) << "nothing away from the box";
}

TEST(AnnotatedFrame, TheStatusLineKeepsLabelsOutFromUnderIt) {
  const FrameResult r = with_a_person();
  cv::Mat frame = grey();
  draw_result(frame, r, kStatus);

  const cv::Mat shown = grey();
  vision::AnnotateOptions clear;
  clear.keep_clear.push_back(vision::status_band(shown, kStatus));
  cv::Mat expected = grey();
  vision::annotate(expected, r.detections, r.model->names, clear);
  vision::draw_status(expected, kStatus);
  EXPECT_TRUE(same(frame, expected));

  // Drawn without keeping the band clear, the label would sit elsewhere (under the band).
  cv::Mat careless = grey();
  vision::annotate(careless, r.detections, r.model->names);
  vision::draw_status(careless, kStatus);
  EXPECT_FALSE(same(frame, careless)) << "the label moved";
}

TEST(AnnotatedFrame, TheSceneIsDrawnOverTheDetectionsOnlyWithTracking) {
  FrameResult r = with_a_person();
  cv::Mat untracked = grey();
  draw_result(untracked, r);

  r.scene = a_zone();
  tracking::Track t;
  t.id = 12;
  t.box = {20, 4, 200, 300};
  t.trail = {{100, 400}, {110, 350}, {110, 300}};
  r.tracks = {t};
  cv::Mat frame = grey();
  draw_result(frame, r);

  cv::Mat expected = grey();
  vision::annotate(expected, r.detections, r.model->names);
  const SceneState& s = *r.scene;
  tracking::draw_scene(expected,
                       {r.tracks, s.zones, s.lines, s.counts, s.occupancy, r.model->names});
  EXPECT_TRUE(same(frame, expected));
  const cv::Rect zone{420, 320, 60, 60};
  EXPECT_FALSE(same(frame(zone), untracked(zone))) << "the zone's fill";
  EXPECT_TRUE(same(untracked(zone), grey()(zone))) << "no zone without tracking";
}

}  // namespace
}  // namespace yolo::daemon
