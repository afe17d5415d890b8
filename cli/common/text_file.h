// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <string_view>

namespace yolo::cli {

// Writes `text` to `file`, replacing it; throws std::runtime_error naming the file and the
// system's reason when it cannot.
void write_text_file(const std::filesystem::path& file, std::string_view text);

}  // namespace yolo::cli
