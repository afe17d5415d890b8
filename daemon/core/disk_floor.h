// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "config/sections/events.h"

namespace yolo::daemon {

// Megabytes as the settings count them: MiB (2^20 bytes).
inline constexpr double kMiB = 1024.0 * 1024.0;
// "12.3 MB": a size as the messages about the disk write it (MiB, one decimal).
std::string megabytes(double bytes);

// The filesystem that holds a path, as statvfs(3) sees it for a writer without root's reserve.
struct DiskSpace {
  // Bytes that can still be written (f_bavail blocks).
  double free = 0;
  // Its block (fragment) size: a file takes whole blocks.
  std::uint64_t block = 4096;

  // What a file of `bytes` takes on this disk: `bytes` rounded up to whole blocks.
  std::uint64_t taken(std::uint64_t bytes) const;
};

// The disk of `path` (which must exist), or nullopt with `error` set to "cannot see the disk of
// PATH (REASON)".
std::optional<DiskSpace> disk_space(const std::filesystem::path& path, std::string& error);

// The state folder's one free-space floor, events.min_free_mb. The event snapshots and clips
// (daemon/outputs/event_store) and the calibration frames (daemon/model/reservoir) both write
// there and both check it before each file, so that neither fills the disk that the other, the
// journal and the system share; one setting, because the owner who sets it means the disk, not
// one of its writers.
class DiskFloor {
 public:
  DiskFloor() = default;
  // events.min_free_mb.
  explicit DiskFloor(const config::EventsConfig& events);

  double bytes() const { return bytes_; }
  // Whether a file that takes `need` bytes, written once `freed` bytes were removed for it,
  // would leave less than the floor free.
  bool crossed_by(const DiskSpace& disk, double need, double freed = 0) const;
  // Why such a file is not written: "its 1.2 MB would leave less than events.min_free_mb (256.0
  // MB) free on the disk of DIR (100.0 MB free)"; the writer adds what to do.
  std::string why(const DiskSpace& disk, double need, const std::filesystem::path& dir) const;

 private:
  double bytes_ = 0;
};

}  // namespace yolo::daemon
