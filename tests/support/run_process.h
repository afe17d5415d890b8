// SPDX-License-Identifier: Apache-2.0
#pragma once

// Runs a program as a user would (no shell) and captures its exit status, stdout and stderr.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace yolo::test {

// Whether `text` (what a program printed) has `part` in it.
inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

struct ProcessResult {
  int status = -1;  // exit status; -1 when the process did not exit normally
  int signal = 0;   // the signal that killed it (a crash), else 0
  std::string out, err;
};

namespace detail {

inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

class SpawnActions {
 public:
  SpawnActions() { posix_spawn_file_actions_init(&actions_); }
  ~SpawnActions() { posix_spawn_file_actions_destroy(&actions_); }
  SpawnActions(const SpawnActions&) = delete;
  SpawnActions& operator=(const SpawnActions&) = delete;
  posix_spawn_file_actions_t* get() { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_;
};

// This process's environment with each "NAME=value" of `overrides` replacing or adding NAME.
inline std::vector<std::string> environment_with(const std::vector<std::string>& overrides) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('=') + 1);
    bool replaced = false;
    for (const auto& o : overrides) replaced = replaced || o.rfind(name, 0) == 0;
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), overrides.begin(), overrides.end());
  return env;
}

inline std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (auto& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

}  // namespace detail

// Runs argv[0] (searched in PATH when it has no '/') with `env` ("NAME=value") added to this
// process's environment. stdout and stderr go through temporary files so large outputs cannot
// block on a pipe.
inline ProcessResult run_process(std::vector<std::string> argv,
                                 const std::vector<std::string>& env = {}) {
  static std::atomic<int> counter{0};
  const auto stem = std::filesystem::temp_directory_path() /
                    ("yolo_run_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  const std::string out_path = stem.string() + ".out";
  const std::string err_path = stem.string() + ".err";

  std::vector<std::string> env_storage = detail::environment_with(env);
  std::vector<char*> c_argv = detail::c_strings(argv);
  std::vector<char*> c_env = detail::c_strings(env_storage);

  detail::SpawnActions actions;
  posix_spawn_file_actions_addopen(actions.get(), STDOUT_FILENO, out_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(actions.get(), STDERR_FILENO, err_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = 0;
  if (const int error = posix_spawnp(&pid, argv.at(0).c_str(), actions.get(), nullptr,
                                     c_argv.data(), c_env.data());
      error != 0) {
    throw std::runtime_error("cannot run " + argv[0] + ": " + std::strerror(error));
  }
  int wait_status = 0;
  if (waitpid(pid, &wait_status, 0) != pid) throw std::runtime_error("waitpid failed");

  ProcessResult result;
  if (WIFEXITED(wait_status)) result.status = WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) result.signal = WTERMSIG(wait_status);
  result.out = detail::slurp(out_path);
  result.err = detail::slurp(err_path);
  std::filesystem::remove(out_path);
  std::filesystem::remove(err_path);
  return result;
}

}  // namespace yolo::test
