// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <vector>

namespace yolo::daemon {

// The event store's files in the events folder, by event id (oldest event first), what they take
// on the disk, and the budget that removes the oldest: events.max_days, then events.max_mb. The
// store's thread alone uses it.
class EventFiles {
 public:
  // The folder's files of ours listed again (what was known of them before is forgotten).
  void scan(const std::filesystem::path& dir);
  // A file just written for event `id`.
  void add(std::int64_t id, const std::filesystem::path& path);
  // A file about to be written again (the same event id after the event log was lost) is
  // counted once.
  void forget(const std::filesystem::path& path);

  // Files older than `max_days` removed, then the oldest events' files until what is kept is
  // within `budget` bytes.
  void keep_to_budget(double max_days, std::uint64_t budget);
  // What make_room(need, keep, budget) would remove, in bytes.
  std::uint64_t room_for(std::uint64_t need, std::int64_t keep, std::uint64_t budget) const;
  // Removes the oldest events' files (never event `keep`'s) until `need` more bytes fit in
  // `budget`.
  void make_room(std::uint64_t need, std::int64_t keep, std::uint64_t budget);

  std::uint64_t bytes() const { return bytes_; }
  std::int64_t count() const;
  // Files the budget removed since the start.
  std::int64_t removed() const { return removed_; }

 private:
  struct File {
    std::filesystem::path path;
    std::uint64_t bytes = 0;
    std::filesystem::file_time_type written;
  };

  // True once the file is gone (also when someone else removed it first).
  bool remove(const File& f);

  std::map<std::int64_t, std::vector<File>> files_;
  std::uint64_t bytes_ = 0;
  std::int64_t removed_ = 0;
};

}  // namespace yolo::daemon
