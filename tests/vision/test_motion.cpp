// SPDX-License-Identifier: Apache-2.0
#include "vision/motion.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include <opencv2/imgproc.hpp>

#include "vision/regions.h"

namespace yolo::vision {
namespace {

// A still scene with texture: a left-to-right ramp (60..180) with horizontal stripes, so the
// noise lies on something that is not flat grey.
cv::Mat make_scene(cv::Size size) {
  cv::Mat scene(size, CV_8UC3);
  for (int y = 0; y < size.height; ++y) {
    for (int x = 0; x < size.width; ++x) {
      const double v = 60 + 120.0 * x / size.width + 20 * std::sin(y / 6.0);
      scene.at<cv::Vec3b>(y, x) = cv::Vec3b::all(cv::saturate_cast<uchar>(v));
    }
  }
  return scene;
}

// One camera frame of `scene`: independent Gaussian noise of `sigma` grey levels on every channel.
cv::Mat shoot(const cv::Mat& scene, double sigma, cv::RNG& rng) {
  cv::Mat f, noise(scene.size(), CV_32FC3), out;
  scene.convertTo(f, CV_32FC3);
  rng.fill(noise, cv::RNG::NORMAL, 0, sigma);
  f += noise;
  f.convertTo(out, CV_8UC3);
  return out;
}

cv::Mat with_square(const cv::Mat& scene, const cv::Rect& square) {
  cv::Mat copy = scene.clone();
  cv::rectangle(copy, square, cv::Scalar::all(255), cv::FILLED);
  return copy;
}

std::string message_of(const MotionSettings& s) {
  try {
    MotionDetector detector(s);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(accepted)";
}

constexpr double kSigma = 6;
const cv::Size kFrame(640, 360);

// The mechanics are tested with a background that learns slowly (0.02 a frame: an object takes
// ~80 frames to fade into it) at threshold 30, so a square 12 px a frame leaves no trail and the
// fade is measured in many frames; the defaults (faster, for cameras that sway) trade that away.
MotionSettings slow() {
  MotionSettings s;
  s.threshold = 30;
  s.learning_rate = 0.02;
  return s;
}

TEST(Motion, FirstFrameStartsTheBackground) {
  MotionDetector detector(slow());
  cv::RNG rng(1);
  const cv::Mat scene = make_scene(kFrame);
  const MotionResult first = detector.detect(with_square(scene, {100, 100, 40, 40}));
  EXPECT_TRUE(first.started);
  EXPECT_TRUE(first.boxes.empty());
  EXPECT_GT(first.ms, 0);
  const MotionResult second = detector.detect(shoot(scene, kSigma, rng));
  EXPECT_FALSE(second.started);
  // The square of the first frame is in the background: its leaving is motion.
  ASSERT_EQ(second.boxes.size(), 1u);
  EXPECT_NEAR(second.boxes[0].x1, 100, 6);
}

TEST(Motion, FindsAMovingSquareInNoise) {
  MotionDetector detector(slow());
  cv::RNG rng(2);
  const cv::Mat scene = make_scene(kFrame);
  for (int i = 0; i < 30; ++i)
    ASSERT_TRUE(detector.detect(shoot(scene, kSigma, rng)).boxes.empty());
  for (int k = 0; k < 40; ++k) {
    const cv::Rect square(60 + 12 * k, 150 + 2 * k, 40, 40);
    const MotionResult r = detector.detect(shoot(with_square(scene, square), kSigma, rng));
    SCOPED_TRACE("frame " + std::to_string(k));
    ASSERT_EQ(r.boxes.size(), 1u);
    // One pixel of the 320 px copy is 2 px here; blur and dilation add one each side.
    const Box& b = r.boxes[0];
    EXPECT_NEAR(b.x1, square.x, 6);
    EXPECT_NEAR(b.y1, square.y, 6);
    EXPECT_NEAR(b.x2, square.x + square.width, 6);
    EXPECT_NEAR(b.y2, square.y + square.height, 6);
    EXPECT_LE(b.x1, square.x);
    EXPECT_GE(b.x2, square.x + square.width);
    EXPECT_FALSE(r.whole_frame_change);
    EXPECT_GT(r.moved_fraction, 0.5 * square.area() / kFrame.area());
    EXPECT_LT(r.moved_fraction, 2.0 * square.area() / kFrame.area());
  }
}

TEST(Motion, AnObjectThatStopsBecomesBackground) {
  MotionDetector detector(slow());
  cv::RNG rng(7);
  const cv::Mat scene = make_scene(kFrame);
  for (int i = 0; i < 10; ++i) detector.detect(shoot(scene, kSigma, rng));
  const cv::Mat parked = with_square(scene, {300, 150, 60, 40});
  int frames_seen = 0;
  for (int i = 0; i < 200; ++i) {
    if (!detector.detect(shoot(parked, kSigma, rng)).boxes.empty()) ++frames_seen;
  }
  // A contrast of ~150 falls below 30 after ln(150 / 30) / 0.02 = 80 frames.
  EXPECT_GT(frames_seen, 70);
  EXPECT_LT(frames_seen, 100);
  EXPECT_TRUE(detector.detect(shoot(parked, kSigma, rng)).boxes.empty());
}

TEST(Motion, CameraNoiseAloneIsNoMotion) {
  struct Case {
    cv::Size size;
    double sigma;
  };
  // The last: a frame already 320 px wide is not shrunk, and heavy noise (a dark scene's gain)
  // is only kept below the threshold by the blur.
  for (const Case c : {Case{{320, 180}, 8}, Case{kFrame, 8}, Case{{320, 180}, 16}}) {
    SCOPED_TRACE(std::to_string(c.size.width) + "x" + std::to_string(c.size.height) + " sigma " +
                 std::to_string(c.sigma));
    const cv::Mat scene = make_scene(c.size);
    MotionDetector detector(slow());
    MotionSettings sensitive = slow();
    sensitive.threshold = 3;
    MotionDetector sensitive_detector(sensitive);
    cv::RNG rng(3);
    double noise_moved = 0;
    for (int i = 0; i < 300; ++i) {
      const cv::Mat frame = shoot(scene, c.sigma, rng);
      const MotionResult r = detector.detect(frame);
      ASSERT_TRUE(r.boxes.empty()) << "frame " << i;
      ASSERT_FALSE(r.whole_frame_change) << "frame " << i;
      EXPECT_LT(r.moved_fraction, 0.001) << "frame " << i;
      noise_moved = std::max(noise_moved, sensitive_detector.detect(frame).moved_fraction);
    }
    // The noise is real: a detector three grey levels sensitive sees it.
    EXPECT_GT(noise_moved, 0.001);
  }
}

TEST(Motion, AMaskHidesWhatMovesUnderIt) {
  MotionSettings settings = slow();
  // A band across the frame over the lower square's path (y 150..200 of 360).
  settings.masks = {{{0, 0.35f}, {1, 0.35f}, {1, 0.65f}, {0, 0.65f}}};
  MotionDetector detector(settings);
  cv::RNG rng(4);
  const cv::Mat scene = make_scene(kFrame);
  for (int i = 0; i < 10; ++i) detector.detect(shoot(scene, kSigma, rng));
  for (int k = 0; k < 20; ++k) {
    const cv::Rect hidden(60 + 12 * k, 160, 40, 40);
    const cv::Rect seen(500 - 12 * k, 40, 40, 40);
    const MotionResult r =
        detector.detect(shoot(with_square(with_square(scene, hidden), seen), kSigma, rng));
    SCOPED_TRACE("frame " + std::to_string(k));
    ASSERT_EQ(r.boxes.size(), 1u);
    EXPECT_NEAR(r.boxes[0].x1, seen.x, 6);
    EXPECT_NEAR(r.boxes[0].y1, seen.y, 6);
  }
}

TEST(Motion, LightsOnIsAWholeFrameChangeWithoutRegions) {
  MotionDetector detector(slow());
  cv::RNG rng(5);
  const cv::Mat scene = make_scene(kFrame);
  cv::Mat lit;
  scene.convertTo(lit, CV_8UC3, 1.0, 70);
  for (int i = 0; i < 20; ++i) detector.detect(shoot(scene, kSigma, rng));
  const MotionResult on = detector.detect(shoot(lit, kSigma, rng));
  EXPECT_TRUE(on.whole_frame_change);
  EXPECT_GT(on.moved_fraction, 0.8);
  EXPECT_TRUE(on.boxes.empty());
  const RegionPlan plan = plan_regions(on.boxes, kFrame, {320, 320});
  EXPECT_TRUE(plan.regions.empty());
  EXPECT_FALSE(plan.whole_frame);
  // The background restarted from the lit frame: the lit scene is still.
  for (int i = 0; i < 10; ++i) {
    const MotionResult after = detector.detect(shoot(lit, kSigma, rng));
    EXPECT_FALSE(after.whole_frame_change);
    EXPECT_TRUE(after.boxes.empty());
  }
}

TEST(Motion, AFrameSizeChangeRestarts) {
  MotionDetector detector(slow());
  cv::RNG rng(6);
  const cv::Mat scene = make_scene(kFrame);
  for (int i = 0; i < 10; ++i) detector.detect(shoot(scene, kSigma, rng));
  const cv::Size smaller(480, 270);
  const cv::Mat small_scene = make_scene(smaller);
  const MotionResult changed = detector.detect(shoot(small_scene, kSigma, rng));
  EXPECT_TRUE(changed.started);
  EXPECT_TRUE(changed.boxes.empty());
  for (int i = 0; i < 5; ++i)
    EXPECT_TRUE(detector.detect(shoot(small_scene, kSigma, rng)).boxes.empty());
  // Boxes come in the new frame's pixels.
  const cv::Rect square(400, 200, 30, 30);
  const MotionResult r = detector.detect(shoot(with_square(small_scene, square), kSigma, rng));
  ASSERT_EQ(r.boxes.size(), 1u);
  EXPECT_NEAR(r.boxes[0].x2, square.x + square.width, 6);
  EXPECT_NEAR(r.boxes[0].y2, square.y + square.height, 6);
}

TEST(Motion, RefusesNonsense) {
  MotionSettings s;
  s.width = 8;
  EXPECT_EQ(message_of(s), "motion: width 8 is below 16 px");
  s = {};
  s.threshold = 0;
  EXPECT_EQ(message_of(s), "motion: threshold 0 is outside 1..255");
  s = {};
  s.min_area = 1;
  EXPECT_NE(message_of(s).find("min_area"), std::string::npos);
  s = {};
  s.learning_rate = 0;
  EXPECT_NE(message_of(s).find("learning_rate"), std::string::npos);
  s = {};
  s.whole_frame_fraction = 1.5;
  EXPECT_NE(message_of(s).find("whole_frame_fraction"), std::string::npos);
  s = {};
  s.masks = {{{0, 0}, {1, 0}}};
  EXPECT_EQ(message_of(s), "motion: mask 1 has fewer than 3 points");
  s.masks = {{{0, 0}, {1, 0}, {1, 1}}, {{0, 0}, {1.5f, 0}, {1, 1}}};
  EXPECT_NE(message_of(s).find("mask 2 has the point (1.5"), std::string::npos);
  s.masks = {{{0, 0}, {std::numeric_limits<float>::quiet_NaN(), 0}, {1, 1}}};
  EXPECT_NE(message_of(s).find("outside 0..1"), std::string::npos);
  EXPECT_EQ(message_of({}), "(accepted)");

  MotionDetector detector(slow());
  EXPECT_THROW(detector.detect(cv::Mat()), std::invalid_argument);
  EXPECT_THROW(detector.detect(cv::Mat(kFrame, CV_8UC1, cv::Scalar(0))), std::invalid_argument);
}

}  // namespace
}  // namespace yolo::vision
