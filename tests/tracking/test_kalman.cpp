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

TEST(BoxFilter, AZeroStepChangesNothing) {
  BoxFilter f(box_at(50, 60));
  f.predict(0);
  EXPECT_EQ(f.box(), box_at(50, 60));
}

}  // namespace
}  // namespace yolo::tracking
