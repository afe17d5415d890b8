// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "os/unique_fd.h"

namespace yolo::daemon {

// Where the field log goes and how much of it is kept.
struct RotationPolicy {
  std::filesystem::path dir;
  // The current file's name; rotated ones add ".1" (newest) to ".<max_files>" (oldest).
  std::string name = "yolo-edge.jsonl";
  // Size at which the current file is rotated; a line longer than this gets a file of its own.
  std::int64_t max_bytes = 10 * 1024 * 1024;
  // Rotated files kept besides the current one; older ones are deleted.
  int max_files = 5;

  bool operator==(const RotationPolicy&) const = default;
};

// A file operation that failed: what was tried, on which path, and the errno it gave.
struct FileError {
  // What was tried, as it reads after "cannot": "write", "create the folder", "rotate" ...
  std::string operation;
  std::filesystem::path path;
  int error = 0;

  // "cannot write /var/log/yolo-edge/yolo-edge.jsonl: No space left on device (ENOSPC); free
  // space on that file system ...": what, where, why and what to do.
  std::string message() const;
};

// An append-only file of text lines, rotated by size. Every line lands whole in one file or not
// at all: a write that fails part-way is cut back off the file, and when even that fails the
// next line starts on a fresh line, so a reader sees at worst one garbage line, never two lines
// run together. It knows nothing of threads: one owner calls it.
class RotatingFile {
 public:
  explicit RotatingFile(RotationPolicy policy);
  RotatingFile(const RotatingFile&) = delete;
  RotatingFile& operator=(const RotatingFile&) = delete;

  // New settings; the file in use is closed and the next append() goes by the new ones.
  void set_policy(RotationPolicy policy);
  const RotationPolicy& policy() const { return policy_; }
  // The current file: dir/name.
  std::filesystem::path path() const;
  // The n-th rotated file (1 is the newest): dir/name.n.
  std::filesystem::path rotated_path(int n) const;

  // Appends `line` (without its newline, which is added here). The folder is created when
  // missing and the file opened when closed; the file is rotated first when the line would take
  // it past max_bytes. On an error nothing of the line stays in the file, the file is closed, and
  // the error says what failed.
  std::optional<FileError> append(std::string_view line);
  // Writes what the file holds to the disk (fdatasync); nothing when it is closed.
  std::optional<FileError> sync();
  // Closes the file; the next append() opens it again by its path, so a file moved, deleted or
  // replaced meanwhile is picked up.
  void close();
  // Set when the last open found the folder not writable (rotation and re-creation will fail)
  // while the file itself still took lines.
  const std::optional<FileError>& folder_warning() const { return folder_warning_; }

 private:
  std::optional<FileError> open();
  std::optional<FileError> rotate();
  // Deletes rotated files numbered max_files and above (left over when max_files shrank).
  std::optional<FileError> delete_oldest();

  RotationPolicy policy_;
  os::UniqueFd fd_;
  // Bytes in the open file.
  std::int64_t size_ = 0;
  // The file ends inside a line (a crash, or a failed write that could not be cut back): the
  // next line must begin with a newline.
  bool ends_mid_line_ = false;
  std::optional<FileError> folder_warning_;
};

}  // namespace yolo::daemon
