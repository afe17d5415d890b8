// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>

namespace yolo::daemon {

// Where an event's files are kept under the daemon's state folder: the event store writes them,
// GET /api/events/ID/snapshot.jpg (crop.jpg, clip.avi) serves them. Named by event id, which
// only grows, so "oldest first" is the order of the names.
struct EventMedia {
  // The annotated frame, as JPEG.
  std::filesystem::path snapshot;
  // The object at its best score, cut from its frame, as JPEG.
  std::filesystem::path crop;
  // Motion-JPEG in AVI: clip_before_s before the event to clip_after_s after it.
  std::filesystem::path clip;
};

// The folder under the state folder that holds every event's files.
std::filesystem::path event_media_dir(const std::filesystem::path& state_dir);
EventMedia event_media(const std::filesystem::path& state_dir, std::int64_t event_id);
// The event id a file in that folder is named for, when `file_name` is one of the names
// event_media() gives (its snapshot, crop or clip); nullopt for any other name.
std::optional<std::int64_t> event_media_id(std::string_view file_name);

}  // namespace yolo::daemon
