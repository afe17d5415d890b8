// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <string_view>

namespace yolo::daemon {

// Writes `bytes` to `path` so that `path` is always either its old whole content or the new
// whole content, also across a power cut: to a temporary name in the same folder, flushed to the
// disk, then renamed over `path` (and the folder flushed). The temporary name is `path` +
// ".partial"; remove_partial_files() clears those a power cut left. Throws std::system_error
// naming the file on any failure (a full or read-only disk), leaving `path` as it was.
void write_file_atomically(const std::filesystem::path& path, std::string_view bytes);

// Whether `path` is a temporary file write_file_atomically() left.
bool is_partial_file(const std::filesystem::path& path);
// Removes the temporary files write_file_atomically() left in `dir` (not below it); returns how
// many. A folder that does not exist holds none.
int remove_partial_files(const std::filesystem::path& dir);

}  // namespace yolo::daemon
