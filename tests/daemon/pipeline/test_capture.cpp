// SPDX-License-Identifier: Apache-2.0
// Capture: the capture thread reads a real source into its camera's slot in the hub, numbers frames
// across reopenings, and reopens a source that stops after reconnect_s
// (daemon/pipeline/capture.cpp).
#include "daemon/pipeline/capture.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

#include "tests/daemon/event_recorder.h"
#include "tests/support/fixtures.h"
#include "tests/support/temp_folder.h"

namespace yolo::daemon {
namespace {

using namespace std::chrono_literals;

struct Fixture {
  Logger log{Logger::Sink::kStderr, config::LogLevel::kError};
  Events events{log};
  test::EventRecorder recorded;
  EventLog object_events{10};
  FrameHub hub;
  std::shared_ptr<CameraStage> camera = std::make_shared<CameraStage>(object_events, "main");
  Fixture() { events.add(&recorded); }
};

config::SourceConfig images(bool loop) {
  config::SourceConfig c;
  c.uri = (test::fixtures_dir() / "images").string();
  c.loop = loop;
  c.realtime = true;
  c.fps = 20;
  c.reconnect_s = 0.2;
  return c;
}

TEST(Capture, NumbersFramesAcrossReopeningsOfASourceThatStops) {
  YOLO_REQUIRE_FIXTURES();
  Fixture f;
  Capture capture(f.events, f.hub, f.camera, 0, false);
  // Unpaced: the photos wait for the test to take them, so none is replaced on a busy machine
  // and the numbers run without a gap.
  config::SourceConfig unpaced = images(false);
  unpaced.realtime = false;
  capture.start(unpaced);
  // Six photos, then the source stops and is reopened 0.2 s later: frames 0..17 over three runs.
  vision::Frame frame;
  std::int64_t expected = 0;
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (expected < 18 && std::chrono::steady_clock::now() < deadline) {
    const auto taken = f.hub.take(frame, 1000ms);
    if (!taken) continue;
    EXPECT_EQ(taken->skipped, 0);
    EXPECT_EQ(taken->camera, f.camera);
    EXPECT_EQ(frame.index, expected);
    ++expected;
  }
  EXPECT_EQ(expected, 18);
  EXPECT_GE(f.recorded.count("source_lost"), 2);
  const auto opened = f.recorded.named("source_opened");
  ASSERT_GE(opened.size(), 3u);
  // The event says which openings are reopenings (the metrics count them).
  EXPECT_EQ(opened[0]["reopened"], false);
  EXPECT_EQ(opened[1]["reopened"], true);
  EXPECT_EQ(opened[2]["reopened"], true);
  EXPECT_GE(capture.status().reopened, 2);
  EXPECT_TRUE(capture.stop(2000ms));
  EXPECT_EQ(capture.state(), Capture::State::kStopped);
}

TEST(Capture, ASourceThatCannotOpenIsRetriedWithGrowingWaits) {
  Fixture f;
  Capture capture(f.events, f.hub, f.camera, 0, false);
  test::TempFolder folder;
  config::SourceConfig c;
  c.uri = (folder.path() / "missing.mp4").string();
  c.reconnect_s = 0.1;
  capture.start(c);
  // Waits of 0.1, 0.2, 0.4 s: three failures within a second, not thirty.
  std::this_thread::sleep_for(1000ms);
  const SourceStatus status = capture.status();
  EXPECT_EQ(status.state, SourceState::kLost);
  EXPECT_TRUE(status.retry_in_s.has_value());
  EXPECT_NE(status.last_error.find("no such file or folder"), std::string::npos);
  EXPECT_EQ(to_json(status)["state"], "lost");
  const int lost = f.recorded.count("source_lost");
  EXPECT_GE(lost, 3);
  EXPECT_LE(lost, 5);
  // The heartbeat goes on while it waits: the watchdog keeps being fed.
  EXPECT_LT(std::chrono::steady_clock::now() - capture.heartbeat(), 1500ms);
  // A reload with a source that works opens it at once.
  if (test::have_fixtures()) {
    capture.reconfigure(images(true));
    vision::Frame frame;
    EXPECT_TRUE(f.hub.take(frame, 5000ms));
    // The thread marks itself streaming right after handing the frame over.
    for (int i = 0; i < 100 && capture.state() != Capture::State::kStreaming; ++i) {
      std::this_thread::sleep_for(10ms);
    }
    EXPECT_EQ(capture.state(), Capture::State::kStreaming);
  }
  EXPECT_TRUE(capture.stop(2000ms));
}

// A lost camera stays "lost" while it is retried: the status does not flicker to "opening" at
// each attempt (a user reading the STATUS= line then would think it was found), and gives no
// "retrying in" while an attempt runs. A new source from a reload is "opening" again. Each failed
// attempt is announced from the capture thread, so the status is read there, during the attempt.
TEST(Capture, ALostSourceStaysLostWhileItIsRetried) {
  struct StatusAtEachFailure : test::EventRecorder {
    const Capture* capture = nullptr;
    mutable std::mutex mutex;
    std::vector<SourceStatus> statuses;
    void event(const Event& e) override {
      if (e.kind == fieldlog::EventKind::kSourceLost) {
        std::lock_guard lock(mutex);
        statuses.push_back(capture->status());
      }
      EventRecorder::event(e);
    }
    std::vector<SourceStatus> seen() const {
      std::lock_guard lock(mutex);
      return statuses;
    }
  };
  Logger log{Logger::Sink::kStderr, config::LogLevel::kError};
  Events events{log};
  StatusAtEachFailure failures;
  events.add(&failures);
  EventLog object_events{10};
  FrameHub hub;
  Capture capture(events, hub, std::make_shared<CameraStage>(object_events, "main"), 0, false);
  failures.capture = &capture;
  test::TempFolder folder;
  config::SourceConfig c;
  c.uri = (folder.path() / "missing.mp4").string();
  c.reconnect_s = 0.05;
  capture.start(c);
  const auto wait_for = [&](std::size_t n) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (failures.seen().size() < n && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(10ms);
    }
    return failures.seen();
  };
  const auto first = wait_for(3);
  ASSERT_GE(first.size(), 3u);
  EXPECT_EQ(state_name(first[0].state), "opening") << "the first attempt";
  for (std::size_t i = 1; i < first.size(); ++i) {
    EXPECT_EQ(state_name(first[i].state), "lost") << i;
    EXPECT_FALSE(first[i].retry_in_s.has_value()) << "attempt " << i << " is running";
  }

  c.uri = (folder.path() / "also-missing.mp4").string();
  capture.reconfigure(c);
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (failures.count("source_lost") == 0 ||
         failures.named("source_lost").back()["uri"] != c.uri) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the new source was never tried";
    std::this_thread::sleep_for(10ms);
  }
  const auto all = failures.seen();
  const auto named = failures.named("source_lost");
  for (std::size_t i = 0; i < named.size(); ++i) {
    if (named[i]["uri"] == c.uri) {
      EXPECT_EQ(state_name(all[i].state), "opening") << "the reload's new source, attempt " << i;
      break;
    }
  }
  EXPECT_TRUE(capture.stop(2000ms));
}

// A camera back after a long absence is opened when its node appears, not at the end of a long
// backoff. As root (CI): a node made with mknod in /dev; it is not a V4L2 device, so the attempt
// fails again, but it is made at once.
TEST(Capture, ACameraNodeThatAppearsIsOpenedAtOnceWhateverTheBackoff) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root, to make a device node in /dev";
  const std::filesystem::path node = "/dev/yolo-edge-test-video-" + std::to_string(getpid());
  std::filesystem::remove(node);
  Fixture f;
  config::SourceConfig c;
  c.uri = node.string();
  c.reconnect_s = 60;
  Capture capture(f.events, f.hub, f.camera, 0, false);
  capture.start(c);
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (f.recorded.count("source_lost") < 1 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(20ms);
  }
  ASSERT_EQ(f.recorded.count("source_lost"), 1);
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(f.recorded.count("source_lost"), 1) << "retried before the 60 s backoff";

  // A character device that is not a camera (/dev/null's numbers).
  ASSERT_EQ(mknod(node.c_str(), S_IFCHR | 0600, makedev(1, 3)), 0) << std::strerror(errno);
  const auto made = std::chrono::steady_clock::now();
  while (f.recorded.count("source_lost") < 2 && std::chrono::steady_clock::now() < made + 5s) {
    std::this_thread::sleep_for(20ms);
  }
  std::filesystem::remove(node);
  EXPECT_EQ(f.recorded.count("source_appeared"), 1);
  EXPECT_EQ(f.recorded.count("source_lost"), 2) << "the appeared node was not tried at once";
  EXPECT_TRUE(capture.stop(2000ms));
}

}  // namespace
}  // namespace yolo::daemon
