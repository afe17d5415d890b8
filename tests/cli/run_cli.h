#pragma once

// Runs the built yolo-edge binary and captures what a user would see.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/support/fixtures.h"

extern char** environ;

namespace yolo::test {

// Whether `text` (what the CLI printed) has `part` in it.
inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

struct CliResult {
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

}  // namespace detail

// Runs `yolo-edge args...` without a shell; stdout and stderr go through temporary files so
// large outputs cannot block on a pipe.
inline CliResult run_cli(const std::vector<std::string>& args) {
  static std::atomic<int> counter{0};
  const auto stem = std::filesystem::temp_directory_path() /
                    ("yolo_cli_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  const std::string out_path = stem.string() + ".out";
  const std::string err_path = stem.string() + ".err";
  const std::string binary = cli_path().string();

  std::vector<std::string> argv_storage{binary};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& arg : argv_storage) argv.push_back(arg.data());
  argv.push_back(nullptr);

  detail::SpawnActions actions;
  posix_spawn_file_actions_addopen(actions.get(), STDOUT_FILENO, out_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(actions.get(), STDERR_FILENO, err_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = 0;
  if (posix_spawn(&pid, binary.c_str(), actions.get(), nullptr, argv.data(), environ) != 0) {
    throw std::runtime_error("cannot run " + binary + "; build the yolo-edge target first");
  }
  int wait_status = 0;
  if (waitpid(pid, &wait_status, 0) != pid) throw std::runtime_error("waitpid failed");

  CliResult result;
  if (WIFEXITED(wait_status)) result.status = WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) result.signal = WTERMSIG(wait_status);
  result.out = detail::slurp(out_path);
  result.err = detail::slurp(err_path);
  std::filesystem::remove(out_path);
  std::filesystem::remove(err_path);
  return result;
}

}  // namespace yolo::test
