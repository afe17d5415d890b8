// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace yolo::cli {

// The field-log files that `paths` name, in reading order: a folder gives each of its logs
// (NAME.jsonl) with its rotated files oldest first (NAME.jsonl.N ... NAME.jsonl.1, NAME.jsonl);
// files stay in the order given. Throws std::runtime_error naming a path that does not exist or
// a folder without field logs.
std::vector<std::filesystem::path> field_log_files(const std::vector<std::string>& paths);

// Told of a line that was skipped: "FILE:LINE: why" (e.g. "x.jsonl:5: not JSON").
using SkippedLine = std::function<void(const std::string& warning)>;

// Every line of `files` that is a field-log line (a JSON object with a "type"), in order. A line
// that is not (a last line cut short by a crash, garbage) is skipped and handed to `skipped`
// naming its file and line number; blank lines are skipped silently.
std::vector<nlohmann::json> read_field_log_lines(const std::vector<std::filesystem::path>& files,
                                                 const SkippedLine& skipped);

}  // namespace yolo::cli
