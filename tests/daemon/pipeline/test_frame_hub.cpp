// SPDX-License-Identifier: Apache-2.0
// FrameHub: per camera the newest frame wins for live sources, files wait for room, pixel buffers
// circulate instead of being allocated per frame, and the inference thread takes the camera whose
// turn it is (daemon/pipeline/frame_hub.cpp); CameraSchedule's turns and skips with made-up times
// (daemon/pipeline/camera_schedule.cpp).
#include "daemon/pipeline/frame_hub.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <set>
#include <thread>

namespace yolo::daemon {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

vision::Frame numbered(std::int64_t index) {
  vision::Frame f;
  f.bgr = cv::Mat(4, 4, CV_8UC3, cv::Scalar::all(static_cast<double>(index)));
  f.index = index;
  return f;
}

struct Hub {
  EventLog log{10};
  FrameHub hub;
  std::shared_ptr<CameraStage> camera(const std::string& name) {
    return std::make_shared<CameraStage>(log, name);
  }
};

TEST(FrameHub, TheNewestFrameWinsAndReplacedOnesAreSkippedAtEveryFrame) {
  Hub h;
  const int id = h.hub.add(h.camera("main"), 0);
  for (std::int64_t i = 0; i < 3; ++i) {
    vision::Frame f = numbered(i);
    ASSERT_TRUE(h.hub.put(id, f, false));
  }
  vision::Frame got;
  const auto taken = h.hub.take(got, 0ms);
  ASSERT_TRUE(taken);
  EXPECT_EQ(taken->skipped, 2);
  EXPECT_EQ(taken->camera->name(), "main");
  EXPECT_EQ(got.index, 2);
  EXPECT_EQ(got.bgr.at<cv::Vec3b>(0, 0)[0], 2);
  // Nothing new: a take times out, and the count restarts at each take.
  EXPECT_FALSE(h.hub.take(got, 10ms));
  vision::Frame f = numbered(3);
  h.hub.put(id, f, false);
  EXPECT_EQ(h.hub.take(got, 0ms)->skipped, 0);
  const FrameHub::Figures figures = h.hub.figures(id);
  EXPECT_EQ(figures.replaced, 2);
  EXPECT_EQ(figures.skipped, 2);
  EXPECT_EQ(figures.detected, 2);
}

TEST(FrameHub, ThreeBuffersCirculateWithoutAllocation) {
  Hub h;
  const int id = h.hub.add(h.camera("main"), 0);
  vision::Frame producer = numbered(0);
  vision::Frame consumer = numbered(0);
  std::set<const uchar*> buffers;
  for (int i = 0; i < 50; ++i) {
    // What a capture does: read into the buffer it got back (same size, so no allocation).
    producer.bgr.setTo(cv::Scalar::all(i));
    producer.index = i;
    h.hub.put(id, producer, false);
    if (i % 3 != 0) {
      ASSERT_TRUE(h.hub.take(consumer, 0ms));
      EXPECT_EQ(consumer.index, i);
      buffers.insert(consumer.bgr.data);
    }
    buffers.insert(producer.bgr.data);
  }
  EXPECT_LE(buffers.size(), 3u);
}

TEST(FrameHub, AFileWaitsForRoomInsteadOfDropping) {
  Hub h;
  const int id = h.hub.add(h.camera("main"), 0);
  std::atomic<int> delivered{0};
  std::thread producer([&] {
    for (int i = 0; i < 20; ++i) {
      vision::Frame f = numbered(i);
      if (!h.hub.put(id, f, true)) return;
      ++delivered;
    }
  });
  vision::Frame got;
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(h.hub.take(got, 2000ms));
    EXPECT_EQ(got.index, i);
    // The producer is at most one frame ahead.
    EXPECT_LE(delivered.load(), i + 2);
  }
  producer.join();
  EXPECT_EQ(h.hub.figures(id).replaced, 0);
}

TEST(FrameHub, CloseAndRemoveWakeBothSides) {
  Hub h;
  const int id = h.hub.add(h.camera("main"), 0);
  const int other = h.hub.add(h.camera("yard"), 0);
  vision::Frame f = numbered(0);
  h.hub.put(id, f, false);
  h.hub.put(other, f, false);
  std::thread waiting_producer([&] {
    vision::Frame g = numbered(1);
    EXPECT_FALSE(h.hub.put(id, g, true));
  });
  std::thread removed_producer([&] {
    vision::Frame g = numbered(1);
    EXPECT_FALSE(h.hub.put(other, g, true)) << "a camera removed stops its capture's wait";
  });
  std::this_thread::sleep_for(20ms);
  h.hub.remove(other);
  removed_producer.join();
  std::thread waiting_consumer([&] {
    Hub empty;
    std::thread closer([&] {
      std::this_thread::sleep_for(20ms);
      empty.hub.close();
    });
    vision::Frame got;
    const auto start = Clock::now();
    EXPECT_FALSE(empty.hub.take(got, 5000ms));
    EXPECT_LT(Clock::now() - start, 2000ms);
    closer.join();
  });
  std::this_thread::sleep_for(20ms);
  h.hub.close();
  waiting_producer.join();
  waiting_consumer.join();
  vision::Frame got;
  EXPECT_FALSE(h.hub.take(got, 0ms));
}

// Two live cameras always with a frame, one inference that takes 50 ms a frame: each is detected
// at its detect_fps when there is room, and when there is not, each gets its share and counts the
// rest as skipped, neither taking the other's turns.
TEST(FrameHub, CamerasAreServedFairlyAtTheirDetectFps) {
  Hub h;
  const int a = h.hub.add(h.camera("a"), 5);
  const int b = h.hub.add(h.camera("b"), 5);
  std::atomic<bool> stop{false};
  const auto feed = [&](int id) {
    vision::Frame f = numbered(0);
    while (!stop) {
      h.hub.put(id, f, false);
      std::this_thread::sleep_for(10ms);
    }
  };
  std::thread fa(feed, a), fb(feed, b);
  std::map<std::string, int> served;
  vision::Frame got;
  const auto end = Clock::now() + 2s;
  while (Clock::now() < end) {
    if (const auto taken = h.hub.take(got, 100ms)) ++served[taken->camera->name()];
  }
  // 10 frames a second asked for in all, 20 possible: both at their 5 fps, nothing skipped.
  EXPECT_NEAR(served["a"], 10, 2);
  EXPECT_NEAR(served["b"], 10, 2);
  EXPECT_LE(h.hub.figures(a).skipped, 1);

  // Now each frame takes 150 ms: about 6.7 frames a second for 10 asked.
  served.clear();
  const auto slow_end = Clock::now() + 3s;
  while (Clock::now() < slow_end) {
    if (const auto taken = h.hub.take(got, 100ms)) {
      ++served[taken->camera->name()];
      std::this_thread::sleep_for(150ms);
    }
  }
  stop = true;
  fa.join();
  fb.join();
  EXPECT_LE(std::abs(served["a"] - served["b"]), 2) << served["a"] << " vs " << served["b"];
  EXPECT_GT(h.hub.figures(a).skipped, 2);
  EXPECT_GT(h.hub.figures(b).skipped, 2);
}

TEST(CameraSchedule, ATurnEveryPeriodAndMissedTurnsCountedAsSkips) {
  CameraSchedule s;
  const Clock::time_point t0{};
  s.add(1, 5, t0);  // a turn every 200 ms
  EXPECT_FALSE(s.next(t0)) << "no frame yet";
  s.arrived(1, t0);
  EXPECT_EQ(s.next(t0), 1);
  EXPECT_EQ(s.served(1, t0), 0);
  // Frames keep coming; the next turn is at 200 ms.
  s.arrived(1, t0 + 33ms);
  std::optional<Clock::time_point> wake;
  EXPECT_FALSE(s.next(t0 + 100ms, &wake));
  EXPECT_EQ(wake, t0 + 200ms);
  EXPECT_EQ(s.next(t0 + 200ms), 1);
  // Served late at 650 ms: the turns at 400 and 600 passed with a frame waiting.
  EXPECT_EQ(s.served(1, t0 + 650ms), 2);
  s.arrived(1, t0 + 700ms);
  EXPECT_FALSE(s.next(t0 + 700ms)) << "the next turn is at 800 ms, on the camera's beat";
  EXPECT_EQ(s.next(t0 + 800ms), 1);
}

TEST(CameraSchedule, AStoppedCameraMissesNothingWhileItGivesNoFrame) {
  CameraSchedule s;
  const Clock::time_point t0{};
  s.add(1, 10, t0);
  s.arrived(1, t0);
  s.served(1, t0);
  // Nothing for 5 s (a camera unplugged), then a frame.
  s.arrived(1, t0 + 5s);
  EXPECT_EQ(s.next(t0 + 5s), 1);
  EXPECT_EQ(s.served(1, t0 + 5s), 0);
}

TEST(CameraSchedule, TheEarliestTurnGoesFirstAndEveryFrameCamerasTakeTurns) {
  CameraSchedule s;
  const Clock::time_point t0{};
  s.add(1, 0, t0);
  s.add(2, 0, t0);
  s.arrived(1, t0);
  s.arrived(2, t0);
  const int first = *s.next(t0 + 1ms);
  s.served(first, t0 + 1ms);
  s.arrived(first, t0 + 2ms);
  EXPECT_EQ(s.next(t0 + 3ms), 3 - first) << "the one waiting longest goes next";
  // Frames replaced while waiting are the skips of a camera at every frame.
  s.arrived(3 - first, t0 + 3ms);
  EXPECT_EQ(s.served(3 - first, t0 + 4ms), 1);
  s.remove(first);
  EXPECT_FALSE(s.next(t0 + 5ms)) << "a camera removed is served no more";
}

}  // namespace
}  // namespace yolo::daemon
