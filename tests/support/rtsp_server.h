// SPDX-License-Identifier: Apache-2.0
#pragma once

// An RTSP server on 127.0.0.1 serving a video file's own H.264 in a loop
// (tests/support/rtsp_serve.py), that a test can kill, freeze and start again on the same port:
// a network camera that drops off and comes back.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/run_process.h"
#include "tests/support/tree_paths.h"

namespace yolo::test {

class RtspServer {
 public:
  // Serves `file`; what the server prints goes to `log`.
  RtspServer(std::filesystem::path file, std::filesystem::path log)
      : file_(std::move(file)), log_(std::move(log)) {}
  ~RtspServer() { kill(); }
  RtspServer(const RtspServer&) = delete;
  RtspServer& operator=(const RtspServer&) = delete;

  // Starts it on `port` (0: a free one, then kept for later starts) and waits until it listens.
  // False when it did not: problem() says why, and missing_tools() whether it is because Debian's
  // python3-gi or the GStreamer RTSP server is not installed (a test then skips).
  bool start(int port = 0) {
    kill();
    problem_.clear();
    missing_tools_ = false;
    if (!std::filesystem::exists(kPython)) {
      missing_tools_ = true;
      problem_ = std::string(kPython) +
                 " is absent: the RTSP test server needs Debian's python3 "
                 "with python3-gi and gir1.2-gst-rtsp-server-1.0";
      return false;
    }
    const std::string script = (source_dir() / "tests" / "support" / "rtsp_serve.py").string();
    std::vector<std::string> argv = {kPython, script, file_.string(), "--port",
                                     std::to_string(port > 0 ? port : port_)};
    std::vector<char*> c_argv = detail::c_strings(argv);
    detail::SpawnActions actions;
    posix_spawn_file_actions_addopen(actions.get(), STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(actions.get(), STDOUT_FILENO, log_.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(actions.get(), STDOUT_FILENO, STDERR_FILENO);
    if (posix_spawn(&pid_, kPython, actions.get(), nullptr, c_argv.data(), environ) != 0) {
      pid_ = -1;
      problem_ = std::string("cannot run ") + kPython;
      return false;
    }
    const std::string marker = "serving rtsp://";
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline) {
      const std::string out = detail::slurp(log_);
      if (const auto at = out.find(marker); at != std::string::npos) {
        const auto end = out.find('\n', at);
        if (end != std::string::npos) {
          url_ = out.substr(at + 8, end - at - 8);
          const auto colon = url_.rfind(':');
          port_ = std::stoi(url_.substr(colon + 1));
          return true;
        }
      }
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        missing_tools_ = WIFEXITED(status) && WEXITSTATUS(status) == kMissingTools;
        problem_ = "the RTSP test server ended: " + out;
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    problem_ = "the RTSP test server did not listen within 20 s: " + detail::slurp(log_);
    kill();
    return false;
  }

  // Gone at once, as a camera switched off: its connections are closed by the kernel.
  void kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  // Silent with its connections open, as a camera cut off the network; thaw() lets it go on.
  void freeze() const { ::kill(pid_, SIGSTOP); }
  void thaw() const { ::kill(pid_, SIGCONT); }

  // rtsp://127.0.0.1:PORT/cam
  const std::string& url() const { return url_; }
  const std::string& problem() const { return problem_; }
  bool missing_tools() const { return missing_tools_; }

 private:
  // python3-gi is built for Debian's own interpreter, whatever else PATH finds first.
  static constexpr const char* kPython = "/usr/bin/python3";
  // What rtsp_serve.py exits with when its modules or GStreamer elements are missing.
  static constexpr int kMissingTools = 77;

  std::filesystem::path file_;
  std::filesystem::path log_;
  pid_t pid_ = -1;
  int port_ = 0;
  std::string url_;
  std::string problem_;
  bool missing_tools_ = false;
};

}  // namespace yolo::test
