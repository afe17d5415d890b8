// SPDX-License-Identifier: Apache-2.0
// FrameSlot: the newest frame wins for live sources, files wait for room, and pixel buffers
// circulate instead of being allocated per frame (daemon/pipeline/frame_slot.cpp).
#include "daemon/pipeline/frame_slot.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

namespace yolo::daemon {
namespace {

using namespace std::chrono_literals;

vision::Frame numbered(std::int64_t index) {
  vision::Frame f;
  f.bgr = cv::Mat(4, 4, CV_8UC3, cv::Scalar::all(static_cast<double>(index)));
  f.index = index;
  return f;
}

TEST(FrameSlot, TheNewestFrameWinsAndReplacedOnesAreCounted) {
  FrameSlot slot;
  for (std::int64_t i = 0; i < 3; ++i) {
    vision::Frame f = numbered(i);
    ASSERT_TRUE(slot.put(f, false));
  }
  vision::Frame got;
  const auto dropped = slot.take(got, 0ms);
  ASSERT_TRUE(dropped);
  EXPECT_EQ(*dropped, 2);
  EXPECT_EQ(got.index, 2);
  EXPECT_EQ(got.bgr.at<cv::Vec3b>(0, 0)[0], 2);
  // Nothing new: a take times out, and the count restarts at each take.
  EXPECT_FALSE(slot.take(got, 10ms));
  vision::Frame f = numbered(3);
  slot.put(f, false);
  EXPECT_EQ(slot.take(got, 0ms), 0);
  EXPECT_EQ(slot.dropped_total(), 2);
}

TEST(FrameSlot, ThreeBuffersCirculateWithoutAllocation) {
  FrameSlot slot;
  vision::Frame producer = numbered(0);
  vision::Frame consumer = numbered(0);
  std::set<const uchar*> buffers;
  for (int i = 0; i < 50; ++i) {
    // What a capture does: read into the buffer it got back (same size, so no allocation).
    producer.bgr.setTo(cv::Scalar::all(i));
    producer.index = i;
    slot.put(producer, false);
    if (i % 3 != 0) {
      ASSERT_TRUE(slot.take(consumer, 0ms));
      EXPECT_EQ(consumer.index, i);
      buffers.insert(consumer.bgr.data);
    }
    buffers.insert(producer.bgr.data);
  }
  EXPECT_LE(buffers.size(), 3u);
}

TEST(FrameSlot, AFileWaitsForRoomInsteadOfDropping) {
  FrameSlot slot;
  std::atomic<int> delivered{0};
  std::thread producer([&] {
    for (int i = 0; i < 20; ++i) {
      vision::Frame f = numbered(i);
      if (!slot.put(f, true)) return;
      ++delivered;
    }
  });
  vision::Frame got;
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(slot.take(got, 2000ms));
    EXPECT_EQ(got.index, i);
    // The producer is at most one frame ahead.
    EXPECT_LE(delivered.load(), i + 2);
  }
  producer.join();
  EXPECT_EQ(slot.dropped_total(), 0);
}

TEST(FrameSlot, CloseWakesBothSides) {
  FrameSlot slot;
  vision::Frame f = numbered(0);
  slot.put(f, false);
  std::thread waiting_producer([&] {
    vision::Frame g = numbered(1);
    EXPECT_FALSE(slot.put(g, true));
  });
  std::thread waiting_consumer([&] {
    FrameSlot empty;
    std::thread closer([&] {
      std::this_thread::sleep_for(20ms);
      empty.close();
    });
    vision::Frame got;
    const auto start = std::chrono::steady_clock::now();
    EXPECT_FALSE(empty.take(got, 5000ms));
    EXPECT_LT(std::chrono::steady_clock::now() - start, 2000ms);
    closer.join();
  });
  std::this_thread::sleep_for(20ms);
  slot.close();
  waiting_producer.join();
  waiting_consumer.join();
  vision::Frame got;
  EXPECT_FALSE(slot.take(got, 0ms));
}

}  // namespace
}  // namespace yolo::daemon
