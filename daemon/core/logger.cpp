// SPDX-License-Identifier: Apache-2.0
#include "daemon/core/logger.h"

#include <sys/stat.h>
#include <sys/uio.h>
#include <syslog.h>
// The entry carries the caller's CODE_FILE and CODE_LINE (journal_entry), not this file's.
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace yolo::daemon {

namespace {

int priority(config::LogLevel level) {
  switch (level) {
    case config::LogLevel::kDebug:
      return LOG_DEBUG;
    case config::LogLevel::kInfo:
      return LOG_INFO;
    case config::LogLevel::kWarning:
      return LOG_WARNING;
    case config::LogLevel::kError:
      return LOG_ERR;
  }
  return LOG_INFO;
}

// Local time with milliseconds, as a person reading a terminal expects.
std::string timestamp() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm local{};
  localtime_r(&t, &local);
  char text[32];
  const std::size_t n = std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &local);
  std::snprintf(text + n, sizeof text - n, ".%03d", static_cast<int>(ms));
  return text;
}

// `file` as a path in the source tree ("daemon/app/service.cpp"), not the build machine's path.
std::string_view source_path(std::string_view file) {
  constexpr std::string_view tree = YOLO_EDGE_SOURCE_TREE "/";
  if (file.starts_with(tree)) file.remove_prefix(tree.size());
  return file;
}

void write_journal(std::vector<std::string> items) {
  std::vector<iovec> iov(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    iov[i].iov_base = items[i].data();
    iov[i].iov_len = items[i].size();
  }
  // The journal may be gone during shutdown; there is nowhere left to report that.
  (void)sd_journal_sendv(iov.data(), static_cast<int>(iov.size()));
}

}  // namespace

std::vector<std::string> journal_entry(config::LogLevel level, std::string_view message,
                                       const LogFields& fields, const std::source_location& where) {
  std::vector<std::string> items;
  items.reserve(fields.size() + 6);
  items.push_back("MESSAGE=" + std::string(message));
  items.push_back("PRIORITY=" + std::to_string(priority(level)));
  items.emplace_back("SYSLOG_IDENTIFIER=yolo-edged");
  items.push_back("CODE_FILE=" + std::string(source_path(where.file_name())));
  items.push_back("CODE_LINE=" + std::to_string(where.line()));
  items.push_back("CODE_FUNC=" + std::string(where.function_name()));
  for (const auto& [name, value] : fields) items.push_back(name + "=" + value);
  return items;
}

const char* level_name(config::LogLevel level) {
  switch (level) {
    case config::LogLevel::kDebug:
      return "debug";
    case config::LogLevel::kInfo:
      return "info";
    case config::LogLevel::kWarning:
      return "warning";
    case config::LogLevel::kError:
      return "error";
  }
  return "info";
}

Logger::Sink Logger::detect_sink() {
  const char* stream = std::getenv("JOURNAL_STREAM");
  if (!stream) return Sink::kStderr;
  struct stat st {};
  if (fstat(STDERR_FILENO, &st) != 0) return Sink::kStderr;
  unsigned long long dev = 0;
  unsigned long long ino = 0;
  if (std::sscanf(stream, "%llu:%llu", &dev, &ino) != 2) return Sink::kStderr;
  return dev == st.st_dev && ino == st.st_ino ? Sink::kJournal : Sink::kStderr;
}

Logger::Logger(Sink sink, config::LogLevel level) : sink_(sink), level_(level) {}

void Logger::set_level(config::LogLevel level) {
  std::lock_guard lock(mutex_);
  level_ = level;
}

void Logger::log(config::LogLevel level, std::string_view message, const LogFields& fields,
                 std::source_location where) {
  std::lock_guard lock(mutex_);
  if (level < level_) return;
  if (sink_ == Sink::kJournal) {
    write_journal(journal_entry(level, message, fields, where));
    return;
  }
  std::fprintf(stderr, "%s %-7s %.*s\n", timestamp().c_str(), level_name(level),
               static_cast<int>(message.size()), message.data());
  std::fflush(stderr);
}

}  // namespace yolo::daemon
