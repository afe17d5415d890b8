// SPDX-License-Identifier: Apache-2.0
#include "cli/common/field_log_files.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <stdexcept>
#include <system_error>

namespace yolo::cli {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kSuffix = ".jsonl";

// For "x.jsonl" the log "x.jsonl" and number 0; for "x.jsonl.3" the log "x.jsonl" and 3;
// false for other names.
bool parse_log_name(const std::string& name, std::string& log, long& number) {
  const auto at = name.rfind(kSuffix);
  if (at == std::string::npos || at == 0) return false;
  const std::string rest = name.substr(at + kSuffix.size());
  log = name.substr(0, at + kSuffix.size());
  if (rest.empty()) {
    number = 0;
    return true;
  }
  if (rest.size() < 2 || rest.size() > 10 || rest[0] != '.' ||
      rest.find_first_not_of("0123456789", 1) != std::string::npos) {
    return false;
  }
  number = std::stol(rest.substr(1));
  return true;
}

std::vector<fs::path> folder_logs(const fs::path& folder) {
  // Per log name, its files by number; the highest number is the oldest.
  std::map<std::string, std::map<long, fs::path, std::greater<>>> logs;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    std::string log;
    long number = 0;
    if (entry.is_regular_file() && parse_log_name(entry.path().filename().string(), log, number)) {
      logs[log][number] = entry.path();
    }
  }
  if (ec)
    throw std::runtime_error("cannot read the folder " + folder.string() + ": " + ec.message());
  std::vector<fs::path> files;
  for (const auto& [log, numbered] : logs) {
    for (const auto& [number, path] : numbered) files.push_back(path);
  }
  if (files.empty()) {
    throw std::runtime_error("no field logs (*.jsonl) in " + folder.string() +
                             "; the daemon writes them to logging.dir");
  }
  return files;
}

void warn(const SkippedLine& skipped, const fs::path& file, long line, const std::string& what) {
  skipped(file.string() + ":" + std::to_string(line) + ": " + what);
}

}  // namespace

std::vector<fs::path> field_log_files(const std::vector<std::string>& paths) {
  std::vector<fs::path> files;
  for (const auto& path : paths) {
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (!fs::exists(status)) {
      throw std::runtime_error("no such file or folder: " + path +
                               " (give field-log files, or the folder logging.dir names)");
    }
    if (fs::is_directory(status)) {
      const auto found = folder_logs(path);
      files.insert(files.end(), found.begin(), found.end());
    } else {
      files.emplace_back(path);
    }
  }
  return files;
}

std::vector<nlohmann::json> read_field_log_lines(const std::vector<fs::path>& files,
                                                 const SkippedLine& skipped) {
  std::vector<nlohmann::json> lines;
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + file.string());
    std::string text;
    long number = 0;
    while (std::getline(in, text)) {
      ++number;
      // getline() stopped at the end of the file rather than at a line break: the writer was
      // cut off in the middle of this line.
      const bool unterminated = in.eof();
      if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
      auto value = nlohmann::json::parse(text, nullptr, false);
      if (value.is_discarded()) {
        warn(skipped, file, number,
             unterminated ? "truncated last line (the daemon stopped in the middle of writing it)"
                          : "not JSON");
        continue;
      }
      if (!value.is_object() || !value.contains("type") || !value["type"].is_string()) {
        warn(skipped, file, number, "not a field-log line (no \"type\")");
        continue;
      }
      lines.push_back(std::move(value));
    }
  }
  return lines;
}

}  // namespace yolo::cli
