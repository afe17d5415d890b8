// SPDX-License-Identifier: Apache-2.0
#include "daemon/core/disk_floor.h"

#include <sys/statvfs.h>

#include <cerrno>
#include <cstring>

#include "text/format.h"

namespace yolo::daemon {

std::string megabytes(double bytes) {
  return text::fixed(bytes / kMiB, 1) + " MB";
}

std::uint64_t DiskSpace::taken(std::uint64_t bytes) const {
  return (bytes + block - 1) / block * block;
}

std::optional<DiskSpace> disk_space(const std::filesystem::path& path, std::string& error) {
  struct statvfs disk {};
  if (::statvfs(path.c_str(), &disk) != 0) {
    error = "cannot see the disk of " + path.string() + " (" + std::strerror(errno) + ")";
    return std::nullopt;
  }
  DiskSpace space;
  space.free = static_cast<double>(disk.f_bavail) * static_cast<double>(disk.f_frsize);
  if (disk.f_frsize) space.block = disk.f_frsize;
  return space;
}

DiskFloor::DiskFloor(const config::EventsConfig& events) : bytes_(events.min_free_mb * kMiB) {}

bool DiskFloor::crossed_by(const DiskSpace& disk, double need, double freed) const {
  return disk.free + freed - need < bytes_;
}

std::string DiskFloor::why(const DiskSpace& disk, double need,
                           const std::filesystem::path& dir) const {
  return "its " + megabytes(need) + " would leave less than events.min_free_mb (" +
         megabytes(bytes_) + ") free on the disk of " + dir.string() + " (" + megabytes(disk.free) +
         " free)";
}

}  // namespace yolo::daemon
