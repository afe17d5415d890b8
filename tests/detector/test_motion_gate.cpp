// SPDX-License-Identifier: Apache-2.0
// detector/motion_gate.cpp: the model runs where something moved, whole every full_frame_s, and
// what stood still keeps its box. First with a stand-in model that reports the bright squares it
// is shown (so each run and each crop can be checked), then with yolo11n on the traffic clip.
#include "detector/motion_gate.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include "tests/support/fixtures.h"

namespace yolo::detector {
namespace {

using namespace std::chrono_literals;
using Clock = MotionGate::Clock;

const cv::Size kFrame(1280, 720);
const cv::Size kInput(320, 320);

// A grey scene with texture, and camera noise.
cv::Mat scene() {
  cv::Mat s(kFrame, CV_8UC3, cv::Scalar(90, 90, 90));
  for (int x = 0; x < kFrame.width; x += 80) cv::line(s, {x, 0}, {x, kFrame.height}, {60, 60, 60});
  return s;
}

cv::Mat shoot(const cv::Mat& s, cv::RNG& rng) {
  cv::Mat noise(s.size(), CV_8UC3);
  rng.fill(noise, cv::RNG::NORMAL, cv::Scalar::all(0), cv::Scalar::all(4));
  cv::Mat out;
  cv::add(s, noise, out);
  return out;
}

cv::Mat with_squares(const cv::Mat& scene, const std::vector<cv::Rect>& squares) {
  cv::Mat s = scene.clone();
  for (const cv::Rect& r : squares) cv::rectangle(s, r, cv::Scalar(250, 250, 250), cv::FILLED);
  return s;
}

// The stand-in model: each bright blob of the image it is given is a detection (class 0) in that
// image's pixels; every call and image size is recorded.
struct SquareModel {
  std::vector<cv::Size> calls;

  vision::Detections operator()(const cv::Mat& image, DetectTimings* t) {
    calls.push_back(image.size());
    if (t) t->inference_ms = 1;
    cv::Mat grey, bright;
    cv::cvtColor(image, grey, cv::COLOR_BGR2GRAY);
    cv::threshold(grey, bright, 200, 255, cv::THRESH_BINARY);
    std::vector<std::vector<cv::Point>> contours;
    cv::findContours(bright, contours, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_SIMPLE);
    vision::Detections out;
    for (const auto& c : contours) {
      const cv::Rect r = cv::boundingRect(c);
      out.push_back({0,
                     0.9f,
                     {static_cast<float>(r.x), static_cast<float>(r.y),
                      static_cast<float>(r.x + r.width), static_cast<float>(r.y + r.height)}});
    }
    return out;
  }
};

struct Gated {
  SquareModel model;
  MotionGate gate;
  Clock::time_point t{};

  explicit Gated(MotionGateSettings s = {}) : gate(std::move(s)) {}
  GatedDetections next(const cv::Mat& frame, bool whole = false) {
    t += 200ms;  // 5 fps
    return gate.detect(
        frame, t, kInput, {},
        [this](const cv::Mat& image, DetectTimings* timings) { return model(image, timings); },
        whole);
  }
};

TEST(MotionGate, AStillSceneRunsTheModelOnlyAtItsWholeFramePasses) {
  MotionGateSettings settings;
  settings.full_frame_s = 2;
  Gated g(settings);
  cv::RNG rng(1);
  const cv::Mat parked = with_squares(scene(), {{200, 300, 60, 40}});
  // 10 s at 5 fps: the first frame, then every 2 s; the frame after the first looks once more
  // where the square was found (it was new: it might have been driving off).
  int whole = 0, regions = 0, still = 0;
  for (int i = 0; i < 50; ++i) {
    const GatedDetections r = g.next(shoot(parked, rng));
    whole += r.pass == Pass::kWhole ? 1 : 0;
    regions += r.pass == Pass::kRegions ? 1 : 0;
    still += r.pass == Pass::kStill ? 1 : 0;
    // The parked square keeps its box at every frame, detected or not.
    ASSERT_EQ(r.detections.size(), 1u) << "frame " << i;
    EXPECT_NEAR(r.detections[0].box.x1, 200, 1);
    EXPECT_EQ(r.runs, r.pass == Pass::kStill ? 0 : 1);
  }
  EXPECT_EQ(whole, 5);
  EXPECT_EQ(regions, 1);
  EXPECT_EQ(still, 44);
  ASSERT_EQ(g.model.calls.size(), 6u);
  EXPECT_EQ(g.model.calls[1], kInput);
}

TEST(MotionGate, WhatMovesIsDetectedOnACropAroundItAndWhereItWas) {
  Gated g;
  cv::RNG rng(2);
  const cv::Mat empty = scene();
  g.next(shoot(empty, rng));
  for (int i = 0; i < 5; ++i) g.next(shoot(empty, rng));
  for (int k = 0; k < 10; ++k) {
    const cv::Rect square(100 + 30 * k, 400, 40, 40);
    g.model.calls.clear();
    const GatedDetections r = g.next(shoot(with_squares(empty, {square}), rng));
    SCOPED_TRACE("frame " + std::to_string(k));
    ASSERT_EQ(r.pass, Pass::kRegions);
    ASSERT_EQ(r.regions.size(), 1u);
    // The model's input size, or a little more to cover where the square was found last too.
    const cv::Rect crop = r.regions[0];
    EXPECT_GE(crop.width, kInput.width);
    EXPECT_LE(crop.width, kInput.width * 5 / 4);
    EXPECT_EQ(crop.width, crop.height) << "the model's aspect";
    EXPECT_EQ((crop & square), square) << "around what moved";
    if (k > 0) {
      const cv::Rect before(100 + 30 * (k - 1), 400, 40, 40);
      EXPECT_EQ((crop & before), before) << "and where it was";
    }
    ASSERT_EQ(g.model.calls.size(), 1u);
    EXPECT_EQ(g.model.calls[0], crop.size());
    // Found in the crop, reported in frame pixels.
    ASSERT_EQ(r.detections.size(), 1u);
    EXPECT_NEAR(r.detections[0].box.x1, square.x, 1);
    EXPECT_NEAR(r.detections[0].box.y1, square.y, 1);
  }
}

TEST(MotionGate, AnObjectThatLeavesLosesItsBoxAndOneThatStaysKeepsIt) {
  Gated g;
  cv::RNG rng(3);
  const cv::Rect parked(900, 100, 60, 40);
  const cv::Mat base = with_squares(scene(), {parked});
  g.next(shoot(with_squares(base, {{100, 400, 40, 40}}), rng));
  // The second square drives off to the right; the parked one stays.
  for (int k = 1; k <= 8; ++k)
    g.next(shoot(with_squares(base, {{100 + 60 * k, 400, 40, 40}}), rng));
  // Gone from the frame: its last crop sees the empty road and its box goes.
  GatedDetections r;
  for (int i = 0; i < 3; ++i) r = g.next(shoot(base, rng));
  ASSERT_EQ(r.detections.size(), 1u);
  EXPECT_NEAR(r.detections[0].box.x1, parked.x, 1) << "the parked square kept";
}

TEST(MotionGate, ATrialOrAChangeOfFrameSizeDetectsTheWholeFrame) {
  Gated g;
  cv::RNG rng(4);
  const cv::Mat still = shoot(scene(), rng);
  EXPECT_EQ(g.next(still).pass, Pass::kWhole);
  EXPECT_EQ(g.next(still).pass, Pass::kStill);
  EXPECT_EQ(g.next(still, true).pass, Pass::kWhole);
  cv::Mat smaller;
  cv::resize(still, smaller, {640, 360});
  EXPECT_EQ(g.next(smaller).pass, Pass::kWhole);
  EXPECT_EQ(g.next(smaller).pass, Pass::kStill);
}

TEST(MotionGate, TooManyCropsDetectTheWholeFrameInstead) {
  MotionGateSettings s;
  s.regions.max_regions = 2;
  Gated g(s);
  cv::RNG rng(5);
  const cv::Mat empty = scene();
  g.next(shoot(empty, rng));
  // Three squares far apart: three crops, one more than allowed.
  const GatedDetections r = g.next(
      shoot(with_squares(empty, {{50, 50, 40, 40}, {600, 350, 40, 40}, {1150, 620, 40, 40}}), rng));
  EXPECT_EQ(r.pass, Pass::kWhole);
  EXPECT_EQ(r.runs, 1);
  EXPECT_EQ(r.detections.size(), 3u);
}

// yolo11n 320 on the traffic clip at 5 fps: a frame held still costs no model run and keeps its
// cars; when the clip moves on, cars are found in motion crops from its first moving frames.
TEST(MotionGate, OnTheTrafficClipAStillFrameKeepsItsCarsAndMotionFindsTheMovingOnes) {
  YOLO_REQUIRE_FIXTURES();
  DetectorOptions options;
  options.model = test::fixtures_dir() / "models/yolo11n_320_fp32.onnx";
  Detector model(options);
  cv::VideoCapture clip((test::fixtures_dir() / "video/traffic_720p_30fps.mp4").string());
  ASSERT_TRUE(clip.isOpened());
  std::vector<cv::Mat> frames;
  cv::Mat f;
  for (int i = 0; clip.read(f) && frames.size() < 12; ++i) {
    if (i % 6 == 0) frames.push_back(f.clone());
  }
  ASSERT_EQ(frames.size(), 12u);
  MotionGate gate({});
  Clock::time_point t{};
  int runs = 0;
  const auto run = [&](const cv::Mat& image, DetectTimings* timings) {
    ++runs;
    return model.detect(image, timings);
  };
  const GatedDetections first = gate.detect(frames[0], t, kInput, {}, run);
  ASSERT_EQ(first.pass, Pass::kWhole);
  ASSERT_GE(first.detections.size(), 1u) << "a car on the road";
  for (int i = 0; i < 25; ++i) {
    t += 200ms;
    const GatedDetections r = gate.detect(frames[0], t, kInput, {}, run);
    // The first frame after the whole pass looks once more where the cars were found.
    ASSERT_EQ(r.pass, i == 0 ? Pass::kRegions : Pass::kStill) << "frame " << i;
    ASSERT_EQ(r.detections.size(), first.detections.size());
  }
  EXPECT_LE(runs, 1 + first.detections.size()) << "the whole pass, then one look per car";
  int in_crops = 0;
  for (std::size_t i = 1; i < 4; ++i) {
    t += 200ms;
    const GatedDetections r = gate.detect(frames[i], t, kInput, {}, run);
    if (r.pass != Pass::kRegions) continue;
    for (const vision::Detection& d : r.detections) {
      for (const cv::Rect& c : r.regions) {
        const cv::Rect box(cv::Point(static_cast<int>(d.box.x1), static_cast<int>(d.box.y1)),
                           cv::Point(static_cast<int>(d.box.x2), static_cast<int>(d.box.y2)));
        in_crops += (box & c) == box ? 1 : 0;
      }
    }
  }
  EXPECT_GT(in_crops, 0) << "cars found in motion crops once the clip moves on";
}

}  // namespace
}  // namespace yolo::detector
