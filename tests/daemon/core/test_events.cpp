// SPDX-License-Identifier: Apache-2.0
// Where everything worth remembering goes (daemon/core/events.cpp): one emit() logs the message
// and hands the same event to every publisher, whatever the log's level, from any thread.
#include "daemon/core/events.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "tests/daemon/event_recorder.h"

namespace yolo::daemon {
namespace {

using config::LogLevel;
using fieldlog::EventKind;
using nlohmann::json;

// Keeps the events whole, time included.
class EventKeeper : public test::EventRecorder {
 public:
  void event(const Event& e) override {
    test::EventRecorder::event(e);
    std::lock_guard lock(mutex_);
    kept_.push_back(e);
  }
  std::vector<Event> kept() const {
    std::lock_guard lock(mutex_);
    return kept_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<Event> kept_;
};

TEST(Events, EveryPublisherGetsTheEventWithItsKindLevelMessageFieldsAndTime) {
  Logger log(Logger::Sink::kStderr, LogLevel::kError);
  Events events(log);
  EXPECT_EQ(&events.log(), &log);
  EventKeeper first;
  EventKeeper second;
  events.add(&first);
  events.add(&second);
  const auto before = std::chrono::system_clock::now();
  events.emit(LogLevel::kWarning, EventKind::kSourceLost, "camera lost: /dev/video0",
              {{"uri", "/dev/video0"}, {"retry_in_s", 2.5}});
  const auto after = std::chrono::system_clock::now();
  for (const EventKeeper* p : {&first, &second}) {
    const auto kept = p->kept();
    ASSERT_EQ(kept.size(), 1u);
    EXPECT_EQ(kept[0].kind, EventKind::kSourceLost);
    EXPECT_EQ(kept[0].level, LogLevel::kWarning);
    EXPECT_EQ(kept[0].message, "camera lost: /dev/video0");
    EXPECT_EQ(kept[0].fields, json({{"uri", "/dev/video0"}, {"retry_in_s", 2.5}}));
    EXPECT_GE(kept[0].time, before);
    EXPECT_LE(kept[0].time, after);
  }
}

TEST(Events, WithoutFieldsOrWithFieldsThatAreNoObjectTheEventHasAnEmptyObject) {
  Logger log(Logger::Sink::kStderr, LogLevel::kError);
  Events events(log);
  EventKeeper keeper;
  events.add(&keeper);
  events.emit(LogLevel::kInfo, EventKind::kReady, "first frame");
  events.emit(LogLevel::kInfo, EventKind::kReady, "an array", json::array({1, 2}));
  events.emit(LogLevel::kInfo, EventKind::kReady, "a number", json(3));
  events.emit(LogLevel::kInfo, EventKind::kReady, "null", json());
  const auto kept = keeper.kept();
  ASSERT_EQ(kept.size(), 4u);
  for (const Event& e : kept) EXPECT_EQ(e.fields, json::object()) << e.message;
}

TEST(Events, TheMessageIsLoggedAtItsLevelAndPublishersGetEvenWhatTheLogDrops) {
  Logger log(Logger::Sink::kStderr, LogLevel::kInfo);
  Events events(log);
  test::EventRecorder recorder;
  events.add(&recorder);
  testing::internal::CaptureStderr();
  events.emit(LogLevel::kDebug, EventKind::kSensors, "sensors: cpu-thermal");
  events.emit(LogLevel::kError, EventKind::kStop, "stopping: fatal", {{"code", 1}});
  const std::string out = testing::internal::GetCapturedStderr();
  EXPECT_EQ(out.find("sensors"), std::string::npos) << "below the log's level: " << out;
  EXPECT_NE(out.find(" error   stopping: fatal\n"), std::string::npos) << out;
  EXPECT_EQ(recorder.names(), (std::vector<std::string>{"sensors", "stop"}));
  EXPECT_EQ(recorder.named("stop")[0]["code"], 1);
  EXPECT_EQ(recorder.named("stop")[0]["level"], "error");
}

TEST(Events, NoPublishersIsFine) {
  Logger log(Logger::Sink::kStderr, LogLevel::kError);
  Events events(log);
  EXPECT_NO_THROW(events.emit(LogLevel::kInfo, EventKind::kStart, "start"));
}

TEST(Events, ManyThreadsEmittingAtOnceLoseNoEvent) {
  Logger log(Logger::Sink::kStderr, LogLevel::kError);
  Events events(log);
  test::EventRecorder first;
  test::EventRecorder second;
  events.add(&first);
  events.add(&second);
  constexpr int kThreads = 8;
  constexpr int kEach = 250;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&events, t] {
      for (int i = 0; i < kEach; ++i) {
        events.emit(LogLevel::kInfo, t % 2 ? EventKind::kSourceOpened : EventKind::kSourceLost, "e",
                    {{"thread", t}, {"i", i}});
      }
    });
  }
  for (auto& th : threads) th.join();
  for (const test::EventRecorder* r : {&first, &second}) {
    EXPECT_EQ(r->count("source_opened"), kThreads / 2 * kEach);
    EXPECT_EQ(r->count("source_lost"), kThreads / 2 * kEach);
  }
}

}  // namespace
}  // namespace yolo::daemon
