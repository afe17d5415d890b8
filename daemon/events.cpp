#include "daemon/events.h"

#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>

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

std::string utc_now() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  gmtime_r(&t, &utc);
  char text[40];
  const std::size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  std::snprintf(text + n, sizeof text - n, ".%03dZ", static_cast<int>(ms));
  return text;
}

void Events::add(Publisher* publisher) {
  std::lock_guard lock(mutex_);
  publishers_.push_back(publisher);
}

void Events::emit(config::LogLevel level, std::string_view name, const std::string& message,
                  nlohmann::json fields) {
  LogFields journal{{"YOLO_EVENT", std::string(name)}};
  for (const auto& [key, value] : fields.items()) {
    if (value.is_primitive()) {
      journal.emplace_back(journal_field(key),
                           value.is_string() ? value.get<std::string>() : value.dump());
    }
  }
  log_.log(level, message, journal);

  nlohmann::json event = {{"type", "event"},
                          {"event", name},
                          {"time", utc_now()},
                          {"level", level_name(level)},
                          {"message", message}};
  for (auto& [key, value] : fields.items()) event[key] = std::move(value);
  std::lock_guard lock(mutex_);
  for (Publisher* p : publishers_) p->event(event);
}

}  // namespace yolo::daemon
