// SPDX-License-Identifier: Apache-2.0
#include "daemon/core/events.h"

#include <cctype>
#include <chrono>

namespace yolo::daemon {

namespace {

// "build_ms" -> "YOLO_BUILD_MS".
std::string journal_field(const std::string& key) {
  std::string out = "YOLO_";
  for (char c : key) {
    out += std::isalnum(static_cast<unsigned char>(c))
               ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
               : '_';
  }
  return out;
}

}  // namespace

void Events::add(Publisher* publisher) {
  std::lock_guard lock(mutex_);
  publishers_.push_back(publisher);
}

void Events::emit(config::LogLevel level, fieldlog::EventKind kind, const std::string& message,
                  nlohmann::json fields, std::source_location where) {
  LogFields journal{{"YOLO_EVENT", std::string(fieldlog::event_name(kind))}};
  for (const auto& [key, value] : fields.items()) {
    if (value.is_primitive()) {
      journal.emplace_back(journal_field(key),
                           value.is_string() ? value.get<std::string>() : value.dump());
    }
  }
  log_.log(level, message, journal, where);

  const Event event{.kind = kind,
                    .level = level,
                    .time = std::chrono::system_clock::now(),
                    .message = message,
                    .fields = fields.is_object() ? std::move(fields) : nlohmann::json::object()};
  std::lock_guard lock(mutex_);
  for (Publisher* p : publishers_) p->event(event);
}

}  // namespace yolo::daemon
