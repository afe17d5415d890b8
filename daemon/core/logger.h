// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <mutex>
#include <source_location>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/config.h"

namespace yolo::daemon {

// Structured fields of one message: journal field names (upper case, digits, '_') and values.
using LogFields = std::vector<std::pair<std::string, std::string>>;

// The daemon's messages. Under systemd they go to the journal with structured fields (PRIORITY,
// SYSLOG_IDENTIFIER, YOLO_*), so `journalctl -u yolo-edged` shows them and they can be filtered
// by field; in a terminal they are readable lines on stderr. Thread-safe.
class Logger {
 public:
  enum class Sink { kJournal, kStderr };

  // The journal when stderr is the journal stream systemd connected (JOURNAL_STREAM names its
  // device and inode), else stderr.
  static Sink detect_sink();

  explicit Logger(Sink sink = detect_sink(), config::LogLevel level = config::LogLevel::kInfo);

  void set_level(config::LogLevel level);
  Sink sink() const { return sink_; }

  // `where` is the caller's place in the source (CODE_FILE, CODE_LINE and CODE_FUNC in the
  // journal, relative to the source tree), not the logger's own.
  void log(config::LogLevel level, std::string_view message, const LogFields& fields = {},
           std::source_location where = std::source_location::current());
  void debug(std::string_view message, const LogFields& fields = {},
             std::source_location where = std::source_location::current()) {
    log(config::LogLevel::kDebug, message, fields, where);
  }
  void info(std::string_view message, const LogFields& fields = {},
            std::source_location where = std::source_location::current()) {
    log(config::LogLevel::kInfo, message, fields, where);
  }
  void warning(std::string_view message, const LogFields& fields = {},
               std::source_location where = std::source_location::current()) {
    log(config::LogLevel::kWarning, message, fields, where);
  }
  void error(std::string_view message, const LogFields& fields = {},
             std::source_location where = std::source_location::current()) {
    log(config::LogLevel::kError, message, fields, where);
  }

 private:
  Sink sink_;
  mutable std::mutex mutex_;
  config::LogLevel level_;
};

// The journal fields of one message: MESSAGE, PRIORITY, SYSLOG_IDENTIFIER, the caller's
// CODE_FILE (relative to the source tree), CODE_LINE and CODE_FUNC, then `fields`.
std::vector<std::string> journal_entry(config::LogLevel level, std::string_view message,
                                       const LogFields& fields, const std::source_location& where);

// "debug", "info", "warning", "error".
const char* level_name(config::LogLevel level);

}  // namespace yolo::daemon
