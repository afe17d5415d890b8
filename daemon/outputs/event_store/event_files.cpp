// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/event_store/event_files.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <iterator>
#include <optional>
#include <system_error>

#include "daemon/core/event_media.h"

namespace yolo::daemon {

namespace {

namespace fs = std::filesystem;

// What a file takes on the disk: its blocks, or its size where blocks are not counted.
std::uint64_t disk_bytes(const fs::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return 0;
  return std::max<std::uint64_t>(static_cast<std::uint64_t>(st.st_size),
                                 static_cast<std::uint64_t>(st.st_blocks) * 512u);
}

}  // namespace

void EventFiles::scan(const fs::path& dir) {
  files_.clear();
  bytes_ = 0;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    const std::optional<std::int64_t> id = event_media_id(entry.path().filename().string());
    std::error_code ignored;
    if (!id || !entry.is_regular_file(ignored)) continue;
    const std::uint64_t taken = disk_bytes(entry.path());
    files_[*id].push_back({entry.path(), taken, fs::last_write_time(entry.path(), ignored)});
    bytes_ += taken;
  }
}

void EventFiles::add(std::int64_t id, const fs::path& path) {
  std::error_code ignored;
  const std::uint64_t taken = disk_bytes(path);
  files_[id].push_back({path, taken, fs::last_write_time(path, ignored)});
  bytes_ += taken;
}

void EventFiles::forget(const fs::path& path) {
  for (auto& [id, files] : files_) {
    std::erase_if(files, [&](const File& f) {
      if (f.path != path) return false;
      bytes_ -= f.bytes;
      return true;
    });
  }
}

void EventFiles::keep_to_budget(double max_days, std::uint64_t budget) {
  const auto max_age = std::chrono::duration_cast<fs::file_time_type::duration>(
      std::chrono::duration<double>(max_days * 86400.0));
  const fs::file_time_type oldest = fs::file_time_type::clock::now() - max_age;
  for (auto& [id, files] : files_) {
    std::erase_if(files, [&](const File& f) { return f.written < oldest && remove(f); });
  }
  std::erase_if(files_, [](const auto& entry) { return entry.second.empty(); });
  make_room(0, -1, budget);
}

std::uint64_t EventFiles::room_for(std::uint64_t need, std::int64_t keep,
                                   std::uint64_t budget) const {
  std::uint64_t freed = 0;
  for (auto it = files_.begin(); it != files_.end() && bytes_ - freed + need > budget; ++it) {
    if (it->first == keep) continue;
    for (const File& f : it->second) freed += std::min(f.bytes, bytes_ - freed);
  }
  return freed;
}

void EventFiles::make_room(std::uint64_t need, std::int64_t keep, std::uint64_t budget) {
  for (auto it = files_.begin(); it != files_.end() && bytes_ + need > budget;) {
    if (it->first == keep) {
      ++it;
      continue;
    }
    std::erase_if(it->second, [&](const File& f) { return remove(f); });
    it = it->second.empty() ? files_.erase(it) : std::next(it);
  }
}

std::int64_t EventFiles::count() const {
  std::int64_t n = 0;
  for (const auto& [id, files] : files_) n += static_cast<std::int64_t>(files.size());
  return n;
}

bool EventFiles::remove(const File& f) {
  std::error_code error;
  fs::remove(f.path, error);
  if (error) return false;
  bytes_ -= std::min(bytes_, f.bytes);
  ++removed_;
  return true;
}

}  // namespace yolo::daemon
