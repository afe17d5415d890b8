// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <mutex>
#include <source_location>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "daemon/core/logger.h"
#include "daemon/core/publisher.h"

namespace yolo::daemon {

// Where everything worth remembering goes: one call logs the message (to the journal with the
// event's fields) and hands the event to every publisher (the field log writes it as an event
// line). Thread-safe; publishers are added before the threads start.
class Events {
 public:
  explicit Events(Logger& log) : log_(log) {}

  void add(Publisher* publisher);

  // Logs `message` at `level` and hands the event to every publisher (the field log writes it as
  // an event line). Scalar fields also become journal fields YOLO_<NAME>; the journal's
  // CODE_FILE and CODE_LINE are the caller's.
  void emit(config::LogLevel level, fieldlog::EventKind kind, const std::string& message,
            nlohmann::json fields = nlohmann::json::object(),
            std::source_location where = std::source_location::current());

  Logger& log() { return log_; }

 private:
  Logger& log_;
  std::mutex mutex_;
  std::vector<Publisher*> publishers_;
};

}  // namespace yolo::daemon
