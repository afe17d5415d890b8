// SPDX-License-Identifier: Apache-2.0
// QuantizeJob: the real `yolo-edge quantize` in a child process at a lower priority (nice 10), its
// progress, its failures and its cancellation (daemon/model/quantize_job.cpp).
#include "daemon/model/quantize_job.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <thread>

#include "tests/support/fixtures.h"
#include "tests/support/temp_folder.h"

namespace yolo::daemon {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

bool wait_finished(const QuantizeJob& job, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!job.finished() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(20ms);
  }
  return job.finished();
}

QuantizeJob::Request request(const fs::path& folder) {
  QuantizeJob::Request r;
  r.cli = test::cli_path();
  r.model = test::fixtures_dir() / "models" / "yolo11n_320_fp32.onnx";
  r.calibration = test::fixtures_dir() / "video" / "birds_720p_10fps.mp4";
  r.out = folder / "m.int8.onnx";
  r.frames = 64;
  return r;
}

TEST(QuantizeJob, AFailureSaysTheExitStatusAndWhatTheQuantizerSaid) {
  test::TempFolder folder;
  QuantizeJob::Request r;
  r.cli = test::cli_path();
  r.model = folder.path() / "missing.onnx";
  r.calibration = folder.path();
  r.out = folder.path() / "m.int8.onnx";
  QuantizeJob job(r);
  ASSERT_TRUE(wait_finished(job, 30s));
  EXPECT_FALSE(job.succeeded());
  EXPECT_NE(job.failure().find("exited with status 2"), std::string::npos) << job.failure();
  EXPECT_NE(job.failure().find("missing.onnx"), std::string::npos) << job.failure();
  EXPECT_FALSE(fs::exists(r.out));
}

TEST(QuantizeJob, AProgramThatCannotStartIsAnError) {
  test::TempFolder folder;
  QuantizeJob::Request r = request(folder.path());
  r.cli = folder.path() / "no-such-yolo-edge";
  EXPECT_THROW({ QuantizeJob job(r); }, std::runtime_error);
}

TEST(QuantizeJob, RunsAtIdlePriorityShowsProgressAndStopsOnCancel) {
  YOLO_REQUIRE_FIXTURES();
  test::TempFolder folder;
  // The daemon blocks SIGTERM in every thread; the child must not inherit that.
  sigset_t term;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  sigset_t old;
  pthread_sigmask(SIG_BLOCK, &term, &old);
  QuantizeJob job(request(folder.path()));
  pthread_sigmask(SIG_SETMASK, &old, nullptr);

  std::string progress;
  const auto deadline = std::chrono::steady_clock::now() + 120s;
  while (std::chrono::steady_clock::now() < deadline &&
         job.progress().find("calibrated") == std::string::npos && !job.finished()) {
    std::this_thread::sleep_for(50ms);
  }
  ASSERT_FALSE(job.finished()) << job.failure();
  EXPECT_NE(job.progress().find("calibrated"), std::string::npos) << job.progress();
  const auto start = std::chrono::steady_clock::now();
  job.cancel(std::chrono::milliseconds(3000));
  EXPECT_TRUE(job.finished());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s) << "SIGTERM did not end the child";
  EXPECT_FALSE(job.succeeded());
  EXPECT_NE(job.failure().find("ended by signal Terminated"), std::string::npos) << job.failure();
  EXPECT_FALSE(fs::exists(folder.path() / "m.int8.onnx"));
}

TEST(QuantizeJob, TheChildRunsAtALowerPriorityWithAShareOfTheCpu) {
  YOLO_REQUIRE_FIXTURES();
  test::TempFolder folder;
  QuantizeJob job(request(folder.path()));
  // The pid is not exposed; the child is the only process of ours running yolo-edge quantize.
  int policy = -1;
  int nice = 0;
  for (int i = 0; i < 100 && (policy < 0 || nice == 0); ++i) {
    for (const auto& e : fs::directory_iterator("/proc")) {
      const std::string name = e.path().filename().string();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      std::ifstream cmdline(e.path() / "cmdline");
      std::string text((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
      if (text.find((folder.path() / "m.int8.onnx").string()) != std::string::npos &&
          text.find("quantize") != std::string::npos) {
        const int pid = std::stoi(name);
        policy = sched_getscheduler(pid);
        errno = 0;
        nice = getpriority(PRIO_PROCESS, static_cast<id_t>(pid));
      }
    }
    if (policy < 0) std::this_thread::sleep_for(20ms);
  }
  // Not SCHED_IDLE, which starves behind busy cores: a normal policy at a lower priority.
  EXPECT_EQ(policy, SCHED_OTHER);
  EXPECT_EQ(nice, QuantizeJob::kQuantizeNice);
  job.cancel();
}

}  // namespace
}  // namespace yolo::daemon
