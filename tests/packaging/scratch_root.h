// SPDX-License-Identifier: Apache-2.0
#pragma once

// A scratch root for scripts/install.sh and scripts/uninstall.sh in DESTDIR mode, with a tripwire:
// the scripts run with a PATH whose useradd, groupadd, usermod, userdel, groupdel, runuser, sudo
// and systemctl only record that they were called, so a test sees any attempt to touch the system
// outside the scratch root.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/run_process.h"
#include "tests/support/temp_folder.h"
#include "tests/support/tree_paths.h"

namespace yolo::test {

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Permission bits of `path` (e.g. 0640).
inline unsigned mode_of(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return 0;
  return st.st_mode & 07777;
}

inline std::string source_config() {
  return read_text(source_dir() / "config" / "yolo-edge.yaml");
}
inline std::string source_unit() {
  return read_text(source_dir() / "systemd" / "yolo-edged.service");
}

// The unit as the source has it, with ExecStart= pointing at `daemon`.
inline std::string unit_starting(const std::string& daemon) {
  std::string unit = source_unit();
  const std::string from = "ExecStart=/usr/local/bin/yolo-edged ";
  const auto at = unit.find(from);
  EXPECT_NE(at, std::string::npos) << "the source unit no longer starts /usr/local/bin/yolo-edged";
  if (at != std::string::npos) unit.replace(at, from.size(), "ExecStart=" + daemon + " ");
  return unit;
}

class ScratchRoot {
 public:
  ScratchRoot() {
    std::filesystem::create_directories(root());
    for (const char* tool : {"useradd", "groupadd", "usermod", "userdel", "groupdel", "runuser",
                             "sudo", "systemctl"}) {
      const auto shim = folder_.write(std::filesystem::path("tripwire") / tool,
                                      "#!/bin/sh\necho \"$(basename \"$0\") $*\" >> \"" +
                                          tripwire_log().string() + "\"\nexit 1\n");
      std::filesystem::permissions(shim, std::filesystem::perms::owner_all);
    }
  }

  // What the scripts take as DESTDIR.
  std::filesystem::path root() const { return folder_.path() / "root"; }
  // A folder beside the root for the test's own files.
  const TempFolder& folder() const { return folder_; }

  // scripts/install.sh --destdir ROOT --no-build (from this build) ARGS...
  ProcessResult install(const std::vector<std::string>& args = {}) const {
    std::vector<std::string> argv{"bash",
                                  (source_dir() / "scripts" / "install.sh").string(),
                                  "--destdir",
                                  root().string(),
                                  "--no-build",
                                  "--build-dir",
                                  binary_dir().string()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(std::move(argv));
  }

  // scripts/uninstall.sh --destdir ROOT ARGS...
  ProcessResult uninstall(const std::vector<std::string>& args = {}) const {
    std::vector<std::string> argv{"bash", (source_dir() / "scripts" / "uninstall.sh").string(),
                                  "--destdir", root().string()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(std::move(argv));
  }

  // Every regular file below the root, as the target system would see it ("/etc/...").
  std::set<std::string> files() const {
    std::set<std::string> found;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root())) {
      if (!entry.is_directory()) {
        found.insert(
            (std::filesystem::path("/") / entry.path().lexically_relative(root())).string());
      }
    }
    return found;
  }

  // The commands the scripts ran that would have changed the system; empty when none.
  std::string tripwire_calls() const { return read_text(tripwire_log()); }

  // ROOT + an absolute path on the target system.
  std::filesystem::path at(const std::string& target_path) const {
    return root() / std::filesystem::path(target_path).relative_path();
  }

 private:
  std::filesystem::path tripwire_log() const { return folder_.path() / "tripwire.log"; }

  ProcessResult run(std::vector<std::string> argv) const {
    const char* path = std::getenv("PATH");
    // An inherited DESTDIR must not redirect the scripts; --destdir says where.
    return run_process(
        std::move(argv),
        {"PATH=" + (folder_.path() / "tripwire").string() + ":" + (path ? path : ""), "DESTDIR="});
  }

  TempFolder folder_;
};

}  // namespace yolo::test
