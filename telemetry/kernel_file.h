// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "os/unique_fd.h"

namespace yolo::telemetry {

// A kernel file (sysfs attribute, /proc/stat) opened once and re-read from offset 0 every
// sample: the kernel produces a fresh value for each read at offset 0, and keeping the file open
// saves the path lookup of an open() per read.
class KernelFile {
 public:
  // Opens `path` read-only; on failure nullopt, with the reason in `error`.
  static std::optional<KernelFile> open(const std::filesystem::path& path, std::error_code& error);
  // The same where the reason does not matter.
  static std::optional<KernelFile> open(const std::filesystem::path& path);

  // The whole file, or nullopt when the read fails (device gone, sensor not ready). The view
  // stays valid until the next read.
  std::optional<std::string_view> read();
  // The file as one integer ("45678\n"), or nullopt when unreadable or not a number.
  std::optional<std::int64_t> read_int(int base = 10);

  const std::filesystem::path& path() const { return path_; }

 private:
  KernelFile(os::UniqueFd fd, std::filesystem::path path);

  os::UniqueFd fd_;
  std::filesystem::path path_;
  // Reused between reads; grows until one read takes the whole file.
  std::string buffer_;
};

// Text as one integer, surrounding whitespace allowed; base 16 also accepts a "0x" prefix.
std::optional<std::int64_t> parse_int(std::string_view text, int base = 10);
// Text as one floating-point number, surrounding whitespace allowed.
std::optional<double> parse_double(std::string_view text);
// `text` without leading and trailing whitespace.
std::string_view trim(std::string_view text);

// A small file read whole and trimmed (a sysfs `name` or `type`), or nullopt when unreadable. For
// discovery, not for every sample.
std::optional<std::string> read_trimmed(const std::filesystem::path& path);

// The entries of `dir` named `prefix` followed by a number ("thermal_zone12"), sorted by that
// number; empty when `dir` is missing.
std::vector<std::pair<int, std::filesystem::path>> numbered_entries(
    const std::filesystem::path& dir, std::string_view prefix);

// "permission denied on /sys/x/energy_uj": an open's failure for messages.
std::string open_failure(const std::filesystem::path& path, const std::error_code& error);

}  // namespace yolo::telemetry
