// SPDX-License-Identifier: Apache-2.0
// The box filter (tracking/kalman.cpp): constant velocity in seconds, whatever the frame rate.
#include "tracking/kalman.h"

#include <gtest/gtest.h>

#include <opencv2/core/types.hpp>

namespace yolo::tracking {
namespace {

vision::Box box_at(float cx, float cy) {
  return {cx - 20, cy - 40, cx + 20, cy + 40};
}

TEST(BoxFilter, LearnsAVelocityInPixelsPerSecondWithUnevenSteps) {
  // 120 px/s to the right, sampled at uneven intervals (a frame rate that changes).
  BoxFilter f(box_at(100, 200));
  float t = 0;
  const float steps[] = {0.033f, 0.1f,  0.05f, 0.2f,   0.033f, 0.033f, 0.15f, 0.066f,
                         0.1f,   0.05f, 0.1f,  0.033f, 0.2f,   0.1f,   0.05f};
  for (int round = 0; round < 3; ++round) {
    for (float dt : steps) {
      t += dt;
      f.predict(dt);
      f.update(box_at(100 + 120 * t, 200));
    }
  }
  EXPECT_NEAR(f.vx(), 120, 6);
  EXPECT_NEAR(f.vy(), 0, 6);
  // Through a gap of half a second with no measurement, it carries on at that speed.
  f.predict(0.5f);
  const vision::Box b = f.box();
  EXPECT_NEAR((b.x1 + b.x2) / 2, 100 + 120 * (t + 0.5f), 6);
  EXPECT_NEAR(b.height(), 80, 2);
  EXPECT_NEAR(b.width(), 40, 2);
}

TEST(BoxFilter, TheSameMotionAtTenAndThirtyFramesASecondEndsAtTheSamePlace) {
  const auto run = [](float fps) {
    BoxFilter f(box_at(0, 0));
    const int n = static_cast<int>(2 * fps);
    for (int i = 1; i <= n; ++i) {
      f.predict(1 / fps);
      f.update(box_at(60 * i / fps, 30 * i / fps));
    }
    f.predict(1.0f);
    const vision::Box b = f.box();
    return cv::Point2f((b.x1 + b.x2) / 2, (b.y1 + b.y2) / 2);
  };
  const cv::Point2f slow = run(10);
  const cv::Point2f fast = run(30);
  // Both should be near (180, 90) after 2 s seen and 1 s predicted.
  EXPECT_NEAR(slow.x, 180, 8);
  EXPECT_NEAR(fast.x, 180, 8);
  EXPECT_NEAR(slow.y, 90, 8);
  EXPECT_NEAR(fast.y, 90, 8);
}

TEST(BoxFilter, ALateFrameMovesTheBoxFurther) {
  // Learn 90 px/s downwards at 30 fps, then step 1/30 s and, from the same state, 1/10 s.
  BoxFilter f(box_at(300, 100));
  for (int i = 1; i <= 60; ++i) {
    f.predict(1 / 30.0f);
    f.update(box_at(300, 100 + 3.0f * i));
  }
  const float cy = (f.box().y1 + f.box().y2) / 2;
  BoxFilter on_time = f, late = f;
  on_time.predict(1 / 30.0f);
  late.predict(0.1f);
  EXPECT_NEAR((on_time.box().y1 + on_time.box().y2) / 2 - cy, 3, 0.5);
  EXPECT_NEAR((late.box().y1 + late.box().y2) / 2 - cy, 9, 1.5);
  EXPECT_NEAR(f.vy(), 90, 5);
}

TEST(BoxFilter, AnUpdateAfterAGapTrustsTheMeasurementMore) {
  // The same measurement 5 px off the prediction pulls the estimate further when the filter went
  // a second without one (its uncertainty grew with the time, not with a count of frames).
  const auto pulled = [](float gap) {
    BoxFilter f(box_at(100, 100));
    for (int i = 0; i < 30; ++i) {
      f.predict(1 / 30.0f);
      f.update(box_at(100, 100));
    }
    f.predict(gap);
    f.update(box_at(105, 100));
    return (f.box().x1 + f.box().x2) / 2 - 100;
  };
  EXPECT_GT(pulled(1.0f), pulled(1 / 30.0f) + 0.5f);
  EXPECT_LE(pulled(1.0f), 5.0f);
}

TEST(BoxFilter, AZeroStepChangesNothing) {
  BoxFilter f(box_at(50, 60));
  f.predict(0);
  EXPECT_EQ(f.box(), box_at(50, 60));
}

}  // namespace
}  // namespace yolo::tracking
