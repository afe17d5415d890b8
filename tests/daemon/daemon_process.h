// SPDX-License-Identifier: Apache-2.0
#pragma once

// The real yolo-edged started the way systemd starts it: its own NOTIFY_SOCKET (a datagram
// socket this test reads, as the service manager would), WATCHDOG_USEC, and stderr captured to a
// file. As root it runs as nobody (setpriv), like the service's dedicated user, so that a
// read-only folder really refuses it.
//
// The scripts start the daemon with scripts/lib/fixture_daemon.py (Python; the shell scripts
// through scripts/lib/daemon-run.sh), the one place outside the tests. Keep the two agreeing: the
// config's defaults (adaptive threads, the field log every second, HTTP off unless asked), the
// config written beside and renamed over, --config and --state-dir, and the readiness checks
// (the port from "http: serving http://HOST:PORT/"; interval lines with frames in the field log).
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/fixtures.h"
#include "tests/support/run_process.h"
#include "tests/support/temp_folder.h"
#include "tests/support/tree_paths.h"

namespace yolo::test {

using Clock = std::chrono::steady_clock;

// Where the unprivileged daemon runs as when the test is root.
inline constexpr uid_t kNobody = 65534;

// The service manager's end of sd_notify: a datagram socket in the abstract namespace (no file,
// no path length limit, no permissions for a daemon running as nobody); NOTIFY_SOCKET names it
// with a leading '@', as systemd's sd_notify understands. A thread drains it as systemd does:
// the kernel queues only a few datagrams, and a full queue would block the daemon's sd_notify.
class NotifySocket {
 public:
  NotifySocket() {
    static int counter = 0;
    name_ = "yolo-edge-test-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
    fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::copy(name_.begin(), name_.end(), addr.sun_path + 1);
    const auto size = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name_.size());
    if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr*>(&addr), size) != 0) {
      throw std::runtime_error("cannot bind the notify socket @" + name_);
    }
    timeval tv{0, 100000};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    reader_ = std::thread([this] {
      char buffer[4096];
      while (!stopping_) {
        const ssize_t n = recv(fd_, buffer, sizeof buffer, 0);
        if (n <= 0) continue;
        std::lock_guard lock(mutex_);
        messages_.emplace_back(buffer, static_cast<std::size_t>(n));
      }
    });
  }
  ~NotifySocket() {
    stopping_ = true;
    reader_.join();
    close(fd_);
  }
  NotifySocket(const NotifySocket&) = delete;
  NotifySocket& operator=(const NotifySocket&) = delete;

  // The NOTIFY_SOCKET value.
  std::string address() const { return "@" + name_; }

  // Every message received so far, oldest first (each may hold several lines).
  std::vector<std::string> messages() const {
    std::lock_guard lock(mutex_);
    return messages_;
  }

  // Waits until a message (received from `from` on) has a line equal to `line`, or one starting
  // with it when `line` ends in '='; returns its index.
  std::optional<std::size_t> wait_for(const std::string& line, std::size_t from,
                                      std::chrono::seconds timeout) const {
    const auto deadline = Clock::now() + timeout;
    for (;;) {
      const std::vector<std::string> all = messages();
      for (std::size_t i = from; i < all.size(); ++i) {
        std::istringstream lines(all[i]);
        for (std::string l; std::getline(lines, l);) {
          if (line.back() == '=' ? l.rfind(line, 0) == 0 : l == line) return i;
        }
      }
      if (Clock::now() >= deadline) return std::nullopt;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

 private:
  std::string name_;
  int fd_ = -1;
  std::atomic<bool> stopping_{false};
  std::thread reader_;
  mutable std::mutex mutex_;
  std::vector<std::string> messages_;
};

// One running yolo-edged; killed (SIGKILL) if the test ends without stopping it.
class DaemonProcess {
 public:
  // `daemon_env`: NAME=value entries for yolo-edged alone, not for setpriv before it (a library
  // preloaded into setpriv would change how setpriv runs).
  DaemonProcess(const std::vector<std::string>& args, const std::vector<std::string>& env,
                const std::filesystem::path& stderr_file,
                const std::vector<std::string>& daemon_env = {}) {
    std::vector<std::string> argv;
    if (geteuid() == 0) {
      argv = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"};
    }
    if (!daemon_env.empty()) {
      argv.push_back("env");
      argv.insert(argv.end(), daemon_env.begin(), daemon_env.end());
    }
    argv.push_back((yolo::test::binary_dir() / "bin" / "yolo-edged").string());
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<std::string> environment = detail::environment_with(env);
    auto c_argv = detail::c_strings(argv);
    auto c_env = detail::c_strings(environment);
    detail::SpawnActions actions;
    posix_spawn_file_actions_addopen(actions.get(), STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(actions.get(), STDOUT_FILENO, stderr_file.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_addopen(actions.get(), STDERR_FILENO, stderr_file.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (posix_spawnp(&pid_, c_argv[0], actions.get(), nullptr, c_argv.data(), c_env.data()) != 0) {
      throw std::runtime_error("cannot start " + argv.front());
    }
  }
  ~DaemonProcess() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  DaemonProcess(const DaemonProcess&) = delete;
  DaemonProcess& operator=(const DaemonProcess&) = delete;

  pid_t pid() const { return pid_; }
  void signal(int number) const { kill(pid_, number); }

  // The exit status once it exits within `timeout` (-1 when killed by a signal), or nothing.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    for (;;) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      if (Clock::now() >= deadline) return std::nullopt;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

 private:
  pid_t pid_ = -1;
};

// The field log's lines, read as they are written (every file in the folder, oldest first).
class FieldLogReader {
 public:
  explicit FieldLogReader(std::filesystem::path dir) : dir_(std::move(dir)) {}

  // Every complete JSON line written so far.
  std::vector<nlohmann::json> lines() const {
    std::vector<std::filesystem::path> files;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir_, ec)) {
      if (e.path().filename().string().find(".jsonl") != std::string::npos)
        files.push_back(e.path());
    }
    // yolo-edge.jsonl.2 is older than .1, which is older than yolo-edge.jsonl.
    std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) {
      auto rank = [](const std::filesystem::path& p) {
        const std::string ext = p.extension().string();
        return ext == ".jsonl" ? 0 : std::stoi(ext.substr(1));
      };
      return rank(a) > rank(b);
    });
    std::vector<nlohmann::json> out;
    for (const auto& f : files) {
      std::ifstream in(f);
      for (std::string line; std::getline(in, line);) {
        if (in.eof()) break;  // a line still being written
        auto j = nlohmann::json::parse(line, nullptr, false);
        if (!j.is_discarded()) out.push_back(std::move(j));
      }
    }
    return out;
  }

  // Waits until a line from number `from` on matches; returns the first that does.
  std::optional<nlohmann::json> wait_for(const std::function<bool(const nlohmann::json&)>& match,
                                         std::chrono::seconds timeout, std::size_t from = 0) const {
    const auto deadline = Clock::now() + timeout;
    for (;;) {
      const auto all = lines();
      for (std::size_t i = from; i < all.size(); ++i) {
        if (match(all[i])) return all[i];
      }
      if (Clock::now() >= deadline) return std::nullopt;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }

 private:
  std::filesystem::path dir_;
};

inline bool is_event(const nlohmann::json& j, const std::string& name) {
  return j.value("type", "") == "event" && j.value("event", "") == name;
}

inline std::string fixture(const std::string& relative) {
  return (fixtures_dir() / relative).string();
}

// A folder the daemon (nobody, when the test runs as root) can write.
inline std::filesystem::path writable_folder(const std::filesystem::path& path) {
  std::filesystem::create_directories(path);
  if (geteuid() == 0 && chown(path.c_str(), kNobody, kNobody) != 0) {
    throw std::runtime_error("cannot chown " + path.string());
  }
  return path;
}

struct DaemonSetup {
  TempFolder folder;
  std::filesystem::path logs;
  std::filesystem::path state;
  std::filesystem::path config;
  std::filesystem::path stderr_file;
  std::unique_ptr<NotifySocket> notify;

  // A test may point logs and config elsewhere before it writes the config.
  DaemonSetup() {
    logs = writable_folder(folder.path() / "logs");
    config = folder.path() / "yolo-edge.yaml";
    state = writable_folder(folder.path() / "state");
    stderr_file = folder.path() / "yolo-edged.stderr";
    notify = std::make_unique<NotifySocket>();
  }

  void write_config(const std::string& text) const {
    // Written beside and renamed over, as an editor does: the daemon never reads half a file.
    const std::filesystem::path tmp = config.string() + ".tmp";
    std::ofstream(tmp) << text;
    std::filesystem::rename(tmp, config);
  }

  // `daemon_env`: more NAME=value entries for the daemon's environment (LD_PRELOAD, ...).
  std::unique_ptr<DaemonProcess> start(const std::vector<std::string>& daemon_env = {}) const {
    return std::make_unique<DaemonProcess>(
        std::vector<std::string>{"--config", config.string(), "--state-dir", state.string()},
        std::vector<std::string>{"NOTIFY_SOCKET=" + notify->address(), "WATCHDOG_USEC=4000000"},
        stderr_file, daemon_env);
  }

  std::string daemon_output() const {
    std::ifstream in(stderr_file);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

  // Whether the daemon's log says `marker` within `timeout`.
  bool wait_for_output(const std::string& marker, std::chrono::seconds timeout) const {
    const auto deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
      if (daemon_output().find(marker) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  // The port the daemon's HTTP server took (http.listen with port 0), from its log line
  // "http: serving http://HOST:PORT/"; nothing when it did not say within `timeout`.
  std::optional<int> http_port(std::chrono::seconds timeout) const {
    const std::string marker = "http: serving http://";
    if (!wait_for_output(marker, timeout)) return std::nullopt;
    const std::string out = daemon_output();
    const auto at = out.rfind(marker);
    const auto colon = out.find(':', at + marker.size());
    return std::stoi(out.substr(colon + 1));
  }
};

// The source section for the bird fixture video, looping at its own pace (10 fps) as a camera.
inline std::string paced_video() {
  return "  uri: " + fixture("video/birds_720p_10fps.mp4") + "\n  loop: true\n  realtime: true\n";
}

// A daemon config for tests. `http` is the body of the http section: off unless a test asks for
// it (the default address, 0.0.0.0:8080, would clash between tests running side by side).
inline std::string config_text(const std::string& source, const std::filesystem::path& logs,
                               const std::string& model, const std::string& extra_model = "",
                               const std::string& http = "  listen: \"\"\n") {
  return "source:\n" + source +
         "  reconnect_s: 0.5\n"
         "model:\n"
         "  path: " +
         fixture("models/" + model + ".onnx") + "\n" + extra_model +
         "threads:\n"
         "  mode: adaptive\n"
         "  max: 2\n"
         "telemetry:\n"
         "  interval_s: 0.5\n"
         "logging:\n"
         "  dir: " +
         logs.string() +
         "\n"
         "  interval_s: 1\n"
         "http:\n" +
         http;
}

inline bool is_interval(const nlohmann::json& j) {
  return j.value("type", "") == "interval";
}

// A fixture whose daemon serves HTTP on a port of its choosing (http.listen with port 0).
class HttpDaemonTest : public ::testing::Test {
 protected:
  // Writes `config`, starts the daemon and takes the port it reports within `timeout`.
  void start_serving(const std::string& config, std::chrono::seconds timeout) {
    s_.write_config(config);
    daemon_ = s_.start();
    const auto port = s_.http_port(timeout);
    ASSERT_TRUE(port) << s_.daemon_output();
    port_ = *port;
  }

  DaemonSetup s_;
  std::unique_ptr<DaemonProcess> daemon_;
  int port_ = 0;
};

}  // namespace yolo::test
