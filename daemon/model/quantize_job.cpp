// SPDX-License-Identifier: Apache-2.0
#include "daemon/model/quantize_job.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>
#include <thread>

extern char** environ;

namespace yolo::daemon {

namespace {

// Lines of the child's output kept for the failure message.
constexpr std::size_t kTailLines = 6;

std::string errno_text(int error) {
  return std::generic_category().message(error);
}

// posix_spawn's attributes and file actions, destroyed on every path.
struct SpawnSetup {
  posix_spawnattr_t attr{};
  posix_spawn_file_actions_t actions{};
  SpawnSetup() {
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_init(&actions);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
};

}  // namespace

QuantizeJob::QuantizeJob(const Request& request) : request_(request) {
  std::vector<std::string> args = {request.cli.string(),
                                   "quantize",
                                   "--model",
                                   request.model.string(),
                                   "--calib",
                                   request.calibration.string(),
                                   "--frames",
                                   std::to_string(request.frames),
                                   "--out",
                                   request.out.string()};
  if (!request.report.empty()) {
    args.push_back("--report");
    args.push_back(request.report.string());
  }
  if (request.imgsz.mode == runtime::InputSize::Mode::kFixed) {
    args.push_back("--imgsz");
    args.push_back(std::to_string(request.imgsz.height) + "," +
                   std::to_string(request.imgsz.width));
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    throw std::runtime_error("cannot start yolo-edge quantize: pipe: " + errno_text(errno));
  }
  SpawnSetup setup;
  // The daemon's threads block the signals its control loop handles; the child must not inherit
  // that, or it could not be stopped with SIGTERM.
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&setup.attr, &none);
  sigset_t defaults;
  sigfillset(&defaults);
  posix_spawnattr_setsigdefault(&setup.attr, &defaults);
  posix_spawnattr_setflags(&setup.attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawn_file_actions_addopen(&setup.actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&setup.actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&setup.actions, pipe_fds[1], STDERR_FILENO);
  // Camera, socket and log descriptors without O_CLOEXEC stay with the daemon.
  posix_spawn_file_actions_addclosefrom_np(&setup.actions, STDERR_FILENO + 1);

  started_ = std::chrono::steady_clock::now();
  const int error = posix_spawn(&pid_, argv[0], &setup.actions, &setup.attr, argv.data(), environ);
  close(pipe_fds[1]);
  if (error != 0) {
    close(pipe_fds[0]);
    throw std::runtime_error("cannot start " + request.cli.string() + ": " + errno_text(error));
  }
  // Lowered after the spawn (posix_spawn has no nice attribute); its first instants at normal
  // priority cost nothing.
  if (setpriority(PRIO_PROCESS, static_cast<id_t>(pid_), kQuantizeNice) != 0) {
    const int error = errno;
    std::lock_guard lock(mutex_);
    tail_.push_back("could not lower its priority (" + errno_text(error) +
                    "); it competes with inference for the CPU as an equal");
  }
  const int read_fd = pipe_fds[0];
  reader_.start("quantize", [this, read_fd] { read_output(read_fd); });
}

QuantizeJob::~QuantizeJob() {
  if (!finished()) cancel();
  reader_.stop_within(std::chrono::seconds(5));
}

void QuantizeJob::read_output(int fd) {
  std::string pending;
  char buffer[4096];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    pending.append(buffer, static_cast<std::size_t>(n));
    for (std::size_t end; (end = pending.find('\n')) != std::string::npos;) {
      std::string line = pending.substr(0, end);
      pending.erase(0, end + 1);
      if (line.empty()) continue;
      std::lock_guard lock(mutex_);
      tail_.push_back(std::move(line));
      if (tail_.size() > kTailLines) tail_.erase(tail_.begin());
    }
  }
  close(fd);
  // Waits without reaping first, so cancel() (which signals under the mutex) can never signal a
  // recycled process id.
  siginfo_t info{};
  while (waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR) {
  }
  {
    std::lock_guard lock(mutex_);
    while (waitpid(pid_, &wait_status_, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
  }
  finished_ = true;
}

bool QuantizeJob::succeeded() const {
  std::lock_guard lock(mutex_);
  return finished_ && WIFEXITED(wait_status_) && WEXITSTATUS(wait_status_) == 0;
}

std::string QuantizeJob::progress() const {
  std::lock_guard lock(mutex_);
  return tail_.empty() ? std::string("starting") : tail_.back();
}

std::string QuantizeJob::failure() const {
  std::lock_guard lock(mutex_);
  std::string out;
  if (WIFEXITED(wait_status_)) {
    out = "yolo-edge quantize exited with status " + std::to_string(WEXITSTATUS(wait_status_));
  } else if (WIFSIGNALED(wait_status_)) {
    out =
        std::string("yolo-edge quantize was ended by signal ") + strsignal(WTERMSIG(wait_status_));
  }
  if (!tail_.empty()) out += ": " + tail_.back();
  return out;
}

double QuantizeJob::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

void QuantizeJob::cancel(std::chrono::milliseconds grace) {
  send_signal(SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (!finished() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!finished()) send_signal(SIGKILL);
  reader_.stop_within(std::chrono::seconds(5));
}

void QuantizeJob::send_signal(int number) {
  std::lock_guard lock(mutex_);
  if (!reaped_ && pid_ > 0) kill(pid_, number);
}

}  // namespace yolo::daemon
