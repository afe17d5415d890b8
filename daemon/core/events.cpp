// SPDX-License-Identifier: Apache-2.0
#include "daemon/core/events.h"

#include "daemon/base/utc_time.h"

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

void Events::emit(config::LogLevel level, std::string_view name, const std::string& message,
                  nlohmann::json fields, std::source_location where) {
  LogFields journal{{"YOLO_EVENT", std::string(name)}};
  for (const auto& [key, value] : fields.items()) {
    if (value.is_primitive()) {
      journal.emplace_back(journal_field(key),
                           value.is_string() ? value.get<std::string>() : value.dump());
    }
  }
  log_.log(level, message, journal, where);

  nlohmann::json event = {{"event", name},
                          {"time", iso8601_utc(std::chrono::system_clock::now())},
                          {"level", level_name(level)},
                          {"message", message}};
  for (auto& [key, value] : fields.items()) event[key] = std::move(value);
  std::lock_guard lock(mutex_);
  for (Publisher* p : publishers_) p->event(event);
}

}  // namespace yolo::daemon
