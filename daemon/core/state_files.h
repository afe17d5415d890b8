// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>

namespace yolo::daemon {

// What the daemon keeps of tracked objects across restarts, in its state folder: the zones' and
// lines' counts (tracking::to_json(Counts)) and the newest events (EventLog::to_json). Written by
// the state output (daemon/outputs/state), read back at start (Service).
inline std::filesystem::path counts_file(const std::filesystem::path& state_dir) {
  return state_dir / "counts.json";
}
inline std::filesystem::path events_file(const std::filesystem::path& state_dir) {
  return state_dir / "events.json";
}

}  // namespace yolo::daemon
