// SPDX-License-Identifier: Apache-2.0
#include "daemon/core/event_media.h"

#include <cstdio>
#include <string>

namespace yolo::daemon {

std::filesystem::path event_media_dir(const std::filesystem::path& state_dir) {
  return state_dir / "events";
}

EventMedia event_media(const std::filesystem::path& state_dir, std::int64_t event_id) {
  // Zero-padded so that a listing sorts by id.
  char stem[32];
  std::snprintf(stem, sizeof stem, "%012lld", static_cast<long long>(event_id));
  const std::filesystem::path dir = event_media_dir(state_dir);
  return {dir / (std::string(stem) + ".jpg"), dir / (std::string(stem) + "-crop.jpg"),
          dir / (std::string(stem) + ".avi")};
}

}  // namespace yolo::daemon
