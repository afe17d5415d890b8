// SPDX-License-Identifier: Apache-2.0
// EventLoop (daemon/app/event_loop.cpp): the control loop's sources on sd-event. Real pipes and
// real timers; the bounds on time are generous (a loaded machine), the orders exact.
#include "daemon/app/event_loop.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "os/unique_fd.h"

namespace yolo::daemon {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

struct Pipe {
  os::UniqueFd read_end;
  os::UniqueFd write_end;
  Pipe() {
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
    read_end = os::UniqueFd(fds[0]);
    write_end = os::UniqueFd(fds[1]);
  }
  void put(char c) const { ASSERT_EQ(write(write_end.get(), &c, 1), 1); }
  char take() const {
    char c = 0;
    EXPECT_EQ(read(read_end.get(), &c, 1), 1);
    return c;
  }
};

TEST(EventLoop, ReadableDescriptorsAndRepeatingTimersEachCallTheirOwnCallback) {
  EventLoop loop;
  Pipe pipe;
  std::string read;
  int ticks = 0;
  const auto reader = loop.readable(pipe.read_end.get(), [&] {
    read += pipe.take();
    if (read == "ab") loop.exit();
  });
  const auto timer = loop.every(20ms, [&] {
    // The bytes arrive between ticks: the timer keeps going while the descriptor is idle.
    if (++ticks == 3) pipe.put('a');
    if (ticks == 6) pipe.put('b');
  });
  const auto start = Clock::now();
  loop.run();
  EXPECT_EQ(read, "ab");
  EXPECT_EQ(ticks, 6);
  EXPECT_GE(Clock::now() - start, 6 * 20ms);
}

TEST(EventLoop, AOneShotTimerFiresOnlyOnceArmedAndReArmingPostponesIt) {
  EventLoop loop;
  std::vector<std::string> order;
  auto debounce = loop.one_shot([&] { order.push_back("debounce"); });
  int ticks = 0;
  const auto timer = loop.every(30ms, [&] {
    ++ticks;
    order.push_back("tick");
    // Armed at the first three ticks: each arming pushes it 100 ms on, so it fires once, about
    // 100 ms after the third.
    if (ticks <= 3) debounce.arm(100ms);
    if (ticks == 10) loop.exit();
  });
  loop.run();
  EXPECT_EQ(std::count(order.begin(), order.end(), "debounce"), 1);
  const auto at = std::find(order.begin(), order.end(), "debounce") - order.begin();
  EXPECT_GE(at, 4) << "fired before its last arming was 100 ms old";
}

TEST(EventLoop, ARemovedSourceCallsNothingMore) {
  EventLoop loop;
  Pipe pipe;
  int reads = 0;
  auto reader = loop.readable(pipe.read_end.get(), [&] {
    pipe.take();
    ++reads;
  });
  int ticks = 0;
  const auto timer = loop.every(10ms, [&] {
    ++ticks;
    if (ticks == 1) pipe.put('x');
    if (ticks == 3) {
      reader = {};
      pipe.put('y');
    }
    if (ticks == 6) loop.exit();
  });
  loop.run();
  EXPECT_EQ(reads, 1);
}

TEST(EventLoop, AnExceptionInACallbackLeavesRunAndReachesTheCaller) {
  EventLoop loop;
  const auto timer = loop.every(1ms, [] { throw std::runtime_error("duty failed"); });
  EXPECT_THROW(
      {
        try {
          loop.run();
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "duty failed");
          throw;
        }
      },
      std::runtime_error);
}

// The control loop keeps SIGHUP blocked but for its wait: a signal sent while a callback runs
// waits for the next wait, and the mask is back as it was once run() returns.
TEST(EventLoop, TheWaitMaskHoldsOnlyWhileTheLoopWaits) {
  sigset_t blocked;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGUSR1);
  sigset_t before;
  ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &blocked, &before), 0);
  static volatile sig_atomic_t taken = 0;
  struct sigaction action {};
  action.sa_handler = [](int) { taken = 1; };
  struct sigaction previous {};
  ASSERT_EQ(sigaction(SIGUSR1, &action, &previous), 0);

  sigset_t wait_mask;
  pthread_sigmask(SIG_SETMASK, nullptr, &wait_mask);
  sigdelset(&wait_mask, SIGUSR1);
  EventLoop loop;
  int ticks = 0;
  bool taken_in_callback = true;
  const auto timer = loop.every(10ms, [&] {
    if (++ticks == 1) {
      pthread_kill(pthread_self(), SIGUSR1);
      taken_in_callback = taken != 0;
    }
    if (ticks == 3) loop.exit();
  });
  loop.run(&wait_mask);
  EXPECT_FALSE(taken_in_callback) << "the signal came in during a callback";
  EXPECT_EQ(taken, 1) << "the signal was not let in while the loop waited";
  sigset_t after;
  pthread_sigmask(SIG_SETMASK, nullptr, &after);
  EXPECT_EQ(sigismember(&after, SIGUSR1), 1);

  sigaction(SIGUSR1, &previous, nullptr);
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
}

}  // namespace
}  // namespace yolo::daemon
