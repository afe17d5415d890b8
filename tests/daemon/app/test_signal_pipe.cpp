// SPDX-License-Identifier: Apache-2.0
// SignalPipe (daemon/app/signal_pipe.cpp): signals reach the control loop whichever thread the
// kernel delivers them to. Then the real yolo-edged with a thread that a library started before
// main() (a preloaded library, and OpenBLAS as libblas.so.3 where it is installed): ten reloads
// keep the same process, and SIGTERM is a clean stop with its `stop` event.
#include "daemon/app/signal_pipe.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/daemon/daemon_process.h"
#include "tests/support/fixtures.h"

namespace yolo::daemon {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using test::Clock;

// Waits up to `timeout` for a signal in the pipe.
std::optional<int> wait_next(SignalPipe& signals, std::chrono::milliseconds timeout) {
  pollfd fd{signals.fd(), POLLIN, 0};
  poll(&fd, 1, static_cast<int>(timeout.count()));
  return signals.next();
}

// Blocks `number` in the calling thread for its lifetime, as the daemon's own threads do.
class Blocked {
 public:
  explicit Blocked(int number) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, number);
    pthread_sigmask(SIG_BLOCK, &set, &before_);
  }
  ~Blocked() { pthread_sigmask(SIG_SETMASK, &before_, nullptr); }
  Blocked(const Blocked&) = delete;
  Blocked& operator=(const Blocked&) = delete;

 private:
  sigset_t before_;
};

TEST(SignalPipe, ASignalTakenByAThreadWithNothingBlockedReachesThePipe) {
  Blocked blocked(SIGHUP);
  SignalPipe signals{SIGHUP, SIGTERM};
  // A thread as a library starts it: nothing blocked. The process-directed signal can only be
  // delivered to it, and without the handler it would end the process.
  std::atomic<bool> stop{false};
  std::thread foreign([&stop] {
    sigset_t none;
    sigemptyset(&none);
    pthread_sigmask(SIG_SETMASK, &none, nullptr);
    while (!stop) std::this_thread::sleep_for(1ms);
  });
  kill(getpid(), SIGHUP);
  EXPECT_EQ(wait_next(signals, 2s), SIGHUP);
  EXPECT_EQ(signals.next(), std::nullopt);
  stop = true;
  foreign.join();
}

TEST(SignalPipe, TheWaitMaskUnblocksOnlyTheHandledSignals) {
  Blocked hup(SIGHUP);
  Blocked usr(SIGUSR1);
  SignalPipe signals{SIGHUP, SIGTERM};
  const sigset_t mask = signals.wait_mask();
  EXPECT_FALSE(sigismember(&mask, SIGHUP));
  EXPECT_TRUE(sigismember(&mask, SIGUSR1)) << "signals the pipe does not handle stay as they were";
  pthread_kill(pthread_self(), SIGTERM);  // not blocked here: handled at once
  kill(getpid(), SIGTERM);
  EXPECT_EQ(signals.next(), SIGTERM);
  EXPECT_EQ(signals.next(), SIGTERM);
  // Blocked in this thread: pending until the wait unblocks it, as in the control loop's ppoll.
  kill(getpid(), SIGHUP);
  EXPECT_EQ(signals.next(), std::nullopt);
  pollfd fd{signals.fd(), POLLIN, 0};
  const timespec timeout{1, 0};
  ppoll(&fd, 1, &timeout, &mask);
  EXPECT_EQ(signals.next(), SIGHUP);
  EXPECT_EQ(signals.next(), std::nullopt);
}

TEST(SignalPipe, OnlyOneAtATimeAndTheOldDispositionComesBack) {
  struct sigaction before {};
  sigaction(SIGHUP, nullptr, &before);
  {
    SignalPipe signals{SIGHUP};
    EXPECT_THROW(SignalPipe({SIGHUP}), std::logic_error);
    struct sigaction now {};
    sigaction(SIGHUP, nullptr, &now);
    EXPECT_NE(now.sa_handler, before.sa_handler);
  }
  struct sigaction after {};
  sigaction(SIGHUP, nullptr, &after);
  EXPECT_EQ(after.sa_handler, before.sa_handler);
  SignalPipe again{SIGHUP};  // the first one let go
}

// The daemon's threads whose signal mask blocks nothing (threads a library started).
int threads_blocking_nothing(pid_t pid) {
  int count = 0;
  std::error_code ec;
  for (const auto& task :
       fs::directory_iterator(fs::path("/proc") / std::to_string(pid) / "task", ec)) {
    std::ifstream status(task.path() / "status");
    for (std::string line; std::getline(status, line);) {
      if (line.rfind("SigBlk:", 0) == 0 && line.find_first_not_of("0\t ", 7) == std::string::npos) {
        ++count;
      }
    }
  }
  return count;
}

// Ten reloads, each waited for (RELOADING=1 then READY=1), then SIGTERM: the same process
// throughout, exit 0, STOPPING=1 and a `stop` event in the field log.
void reload_ten_times_then_stop(const std::vector<std::string>& env) {
  test::DaemonSetup s;
  s.write_config(test::config_text(test::paced_video(), s.logs, "yolo11n_320_fp32"));
  auto daemon = s.start(env);
  test::FieldLogReader log(s.logs);
  ASSERT_TRUE(s.notify->wait_for("READY=1", 0, 60s)) << s.daemon_output();
  ASSERT_GE(threads_blocking_nothing(daemon->pid()), 1)
      << "no thread of the daemon has every signal unblocked: the case under test did not arise";

  for (int i = 0; i < 10; ++i) {
    const std::size_t seen = s.notify->messages().size();
    daemon->signal(SIGHUP);
    const auto reloading = s.notify->wait_for("RELOADING=1", seen, 10s);
    ASSERT_TRUE(reloading) << "reload " << i + 1 << " was not served\n" << s.daemon_output();
    ASSERT_TRUE(s.notify->wait_for("READY=1", *reloading, 10s)) << s.daemon_output();
    ASSERT_FALSE(daemon->wait_exit(0ms)) << "the daemon died on reload " << i + 1;
  }

  const std::size_t seen = s.notify->messages().size();
  daemon->signal(SIGTERM);
  const auto status = daemon->wait_exit(10s);
  ASSERT_TRUE(status) << "did not exit after SIGTERM\n" << s.daemon_output();
  EXPECT_EQ(*status, 0) << "killed by the signal instead of stopping\n" << s.daemon_output();
  EXPECT_TRUE(s.notify->wait_for("STOPPING=1", seen, 1s));
  const auto lines = log.lines();
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [](const auto& j) {
    return test::is_event(j, "stop");
  })) << "no stop event in the field log";
}

TEST(SignalPipeDaemon, ReloadsAndStopsWithALibraryThreadStartedBeforeMain) {
  YOLO_REQUIRE_FIXTURES();
  reload_ten_times_then_stop({std::string("LD_PRELOAD=") + YOLO_THREAD_BEFORE_MAIN});
}

TEST(SignalPipeDaemon, ReloadsAndStopsWithOpenBlasAsTheBlas) {
  YOLO_REQUIRE_FIXTURES();
  // What update-alternatives points libblas.so.3 at once libopenblas0-pthread is installed.
  fs::path openblas;
  std::error_code ec;
  for (const auto& dir : fs::directory_iterator("/usr/lib", ec)) {
    if (fs::exists(dir.path() / "openblas-pthread" / "libblas.so.3")) {
      openblas = dir.path() / "openblas-pthread";
    }
  }
  if (openblas.empty()) {
    GTEST_SKIP() << "OpenBLAS is not installed (Debian libopenblas0-pthread; .ci/run installs it)";
  }
  reload_ten_times_then_stop({"LD_LIBRARY_PATH=" + openblas.string()});
}

}  // namespace
}  // namespace yolo::daemon
