// SPDX-License-Identifier: Apache-2.0
// The shape of an output on a thread of its own (daemon/core/queued_output.h): a bounded queue
// that drops its oldest item rather than block a producer, settings handed over newest only,
// the thread's snapshot as the status, a wake fd, and stop() that drains, refuses later items
// and gives up on a thread that does not return within its limit.
#include "daemon/core/queued_output.h"

#include <gtest/gtest.h>
#include <poll.h>

#include <algorithm>
#include <atomic>
#include <numeric>
#include <thread>
#include <vector>

#include "tests/support/eventually.h"

namespace yolo::daemon {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using test::eventually;

struct Settings {
  int scale = 1;
};

// Whether `fd` is readable now.
bool readable(int fd) {
  pollfd p{fd, POLLIN, 0};
  return poll(&p, 1, 0) == 1 && (p.revents & POLLIN) != 0;
}

// A door the thread waits at while the test holds it shut: shut() and open() on the test's
// thread, pass() on the output's.
class Door {
 public:
  void shut() { mutex_.lock(); }
  void open() { mutex_.unlock(); }
  void pass() { std::lock_guard lock(mutex_); }

 private:
  std::mutex mutex_;
};

// Collects its items, each times the scale of the settings it took before it, and reports how many
// it has done; waits at the door before each item.
class Collector : public QueuedOutput<int, Settings> {
 public:
  explicit Collector(std::size_t capacity, std::chrono::milliseconds stop_limit = 5s)
      : QueuedOutput("collector", capacity, stop_limit, Settings{}, json{{"ok", true}}) {}
  ~Collector() override { stop_worker(); }

  void configure(const config::Config&) override {}
  void publish(std::shared_ptr<const FrameResult>) override {}

  using QueuedOutput::hand_over;
  using QueuedOutput::push;
  using QueuedOutput::queue;
  using QueuedOutput::settings;
  using QueuedOutput::take_settings;
  using QueuedOutput::wake;
  using QueuedOutput::wake_fd;

  std::vector<int> done() const {
    std::lock_guard lock(mutex_);
    return done_;
  }
  int runs() const { return runs_; }
  Door door;

 protected:
  void run() override {
    ++runs_;
    int scale = 1;
    for (;;) {
      const std::optional<int> item = queue().pop(20ms);
      if (!item) {
        if (queue().closed()) return;
        continue;
      }
      if (const std::optional<Settings> s = take_settings()) scale = s->scale;
      door.pass();
      std::size_t n = 0;
      {
        std::lock_guard lock(mutex_);
        done_.push_back(*item * scale);
        n = done_.size();
      }
      report({{"ok", true}, {"done", n}});
    }
  }

 private:
  mutable std::mutex mutex_;
  std::vector<int> done_;
  std::atomic<int> runs_{0};
};

TEST(QueuedOutput, IsNamedAndStatesItsInitialSnapshotBeforeItStarts) {
  Collector c(4);
  EXPECT_EQ(c.name(), "collector");
  EXPECT_EQ(c.status(), json({{"ok", true}}));
}

TEST(QueuedOutput, AFullQueueDropsTheOldestAndCountsIt) {
  Collector c(3);
  for (int i = 1; i <= 5; ++i) EXPECT_TRUE(c.push(i));
  EXPECT_EQ(c.queue().size(), 3u);
  EXPECT_EQ(c.queue().dropped(), 2);
  c.start();
  EXPECT_TRUE(c.stop());
  EXPECT_EQ(c.done(), (std::vector<int>{3, 4, 5})) << "the newest three, oldest first";
}

TEST(QueuedOutput, APushNeverWaitsForASlowThread) {
  Collector c(8);
  c.door.shut();
  c.start();
  ASSERT_TRUE(c.push(0));
  // The thread takes item 0 and waits at the door; every later push only queues.
  ASSERT_TRUE(eventually([&] { return c.queue().size() == 0; }));
  const auto start = std::chrono::steady_clock::now();
  constexpr int kPushes = 10000;
  for (int i = 1; i <= kPushes; ++i) ASSERT_TRUE(c.push(i));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s) << "pushes returned at once";
  EXPECT_EQ(c.queue().size(), 8u);
  EXPECT_EQ(c.queue().dropped(), kPushes - 8);
  c.door.open();
  EXPECT_TRUE(c.stop());
  std::vector<int> expected{0};
  for (int i = kPushes - 7; i <= kPushes; ++i) expected.push_back(i);
  EXPECT_EQ(c.done(), expected);
}

TEST(QueuedOutput, StopDrainsTheQueueThenRefusesItems) {
  Collector c(100);
  c.start();
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(c.push(i));
  EXPECT_TRUE(c.stop());
  std::vector<int> all(50);
  std::iota(all.begin(), all.end(), 0);
  EXPECT_EQ(c.done(), all) << "every item queued before stop() is done";
  EXPECT_FALSE(c.push(50)) << "stopped: not queued";
  EXPECT_EQ(c.queue().size(), 0u);
  EXPECT_TRUE(c.stop()) << "a second stop() is harmless";
  EXPECT_EQ(c.status(), json({{"ok", true}, {"done", 50}})) << "the thread's last report";
}

TEST(QueuedOutput, StopBeforeStartAndAStartTwiceRunOneThreadAtMost) {
  {
    Collector never(4);
    EXPECT_TRUE(never.stop());
    EXPECT_EQ(never.runs(), 0);
  }
  Collector c(4);
  c.start();
  c.start();
  ASSERT_TRUE(c.push(1));
  ASSERT_TRUE(eventually([&] { return c.done().size() == 1; }));
  EXPECT_TRUE(c.stop());
  EXPECT_EQ(c.runs(), 1);
}

TEST(QueuedOutput, AThreadStuckPastTheStopLimitIsGivenUpOn) {
  Collector c(4, 100ms);
  c.door.shut();
  c.start();
  ASSERT_TRUE(c.push(1));
  ASSERT_TRUE(eventually([&] { return c.queue().size() == 0; }));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(c.stop()) << "run() is still at the door";
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_GE(waited, 100ms);
  EXPECT_LT(waited, 2s);
  EXPECT_FALSE(c.push(2)) << "the queue is closed all the same";
  // Let it go, so that the destructor can join it.
  c.door.open();
  EXPECT_TRUE(c.stop());
  EXPECT_EQ(c.done(), std::vector<int>{1});
}

TEST(QueuedOutput, SettingsAreHandedOverNewestOnlyAndTakenOnce) {
  Collector c(4);
  EXPECT_EQ(c.settings().scale, 1);
  EXPECT_FALSE(c.take_settings()) << "the first settings are not handed over";
  c.hand_over({2});
  c.hand_over({3});
  EXPECT_EQ(c.settings().scale, 3);
  const std::optional<Settings> taken = c.take_settings();
  ASSERT_TRUE(taken);
  EXPECT_EQ(taken->scale, 3) << "only the newest";
  EXPECT_FALSE(c.take_settings()) << "nothing new since";
  c.hand_over({3});
  EXPECT_TRUE(c.take_settings()) << "handing over the same again is new again";
}

TEST(QueuedOutput, TheThreadTakesNewSettingsBeforeItsNextItem) {
  Collector c(4);
  c.start();
  ASSERT_TRUE(c.push(1));
  ASSERT_TRUE(eventually([&] { return c.done().size() == 1; }));
  c.hand_over({10});
  ASSERT_TRUE(c.push(2));
  EXPECT_TRUE(c.stop());
  EXPECT_EQ(c.done(), (std::vector<int>{1, 20}));
}

TEST(QueuedOutput, TheWakeFdIsReadableAfterEachWayOfWakingTheThread) {
  Collector c(4);
  const WakeFd& fd = c.wake_fd();
  EXPECT_FALSE(readable(fd.fd()));
  ASSERT_TRUE(c.push(1));
  EXPECT_TRUE(readable(fd.fd())) << "push";
  fd.clear();
  EXPECT_FALSE(readable(fd.fd()));
  c.hand_over({2});
  EXPECT_TRUE(readable(fd.fd())) << "hand_over";
  fd.clear();
  c.wake();
  EXPECT_TRUE(readable(fd.fd())) << "wake";
  fd.clear();
  EXPECT_TRUE(c.stop());
  EXPECT_TRUE(readable(fd.fd())) << "stop";
  fd.clear();
  EXPECT_FALSE(c.push(3));
  EXPECT_FALSE(readable(fd.fd())) << "a refused item wakes nobody";
}

TEST(QueuedOutput, ManyProducersAtOnceLoseNothingTheQueueHasRoomFor) {
  constexpr int kThreads = 8;
  constexpr int kEach = 500;
  Collector c(kThreads * kEach);
  c.start();
  std::vector<std::thread> producers;
  for (int t = 0; t < kThreads; ++t) {
    producers.emplace_back([&c, t] {
      for (int i = 0; i < kEach; ++i) c.push(t * kEach + i);
    });
  }
  // status() from another thread while the thread reports.
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(c.status()["ok"]);
  for (auto& p : producers) p.join();
  EXPECT_TRUE(c.stop());
  EXPECT_EQ(c.queue().dropped(), 0);
  std::vector<int> done = c.done();
  std::sort(done.begin(), done.end());
  std::vector<int> all(kThreads * kEach);
  std::iota(all.begin(), all.end(), 0);
  EXPECT_EQ(done, all);
}

// A snapshot that is not the status JSON: status() is the subclass's to word.
struct Progress {
  int done = 0;
};
class Quiet : public QueuedOutput<int, Settings, Progress> {
 public:
  Quiet() : QueuedOutput("quiet", 1, 1s, Settings{}, Progress{7}) {}
  ~Quiet() override { stop_worker(); }
  void configure(const config::Config&) override {}
  void publish(std::shared_ptr<const FrameResult>) override {}
  using QueuedOutput::report;
  using QueuedOutput::snapshot;

 protected:
  void run() override {}
};

TEST(QueuedOutput, ASnapshotOfItsOwnTypeIsKeptButNotTheStatus) {
  Quiet q;
  EXPECT_EQ(q.snapshot().done, 7);
  q.report({9});
  EXPECT_EQ(q.snapshot().done, 9);
  EXPECT_EQ(q.status(), json::object());
}

}  // namespace
}  // namespace yolo::daemon
