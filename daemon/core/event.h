// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "fieldlog/events.h"

namespace yolo::daemon {

// Something worth remembering that happened (start, reload, swap, camera lost, ...), as Events
// hands it to every publisher; the field log writes it as an event line (docs/field-log.md).
struct Event {
  fieldlog::EventKind kind{};
  config::LogLevel level = config::LogLevel::kInfo;
  std::chrono::system_clock::time_point time{};
  // One sentence for a person (the journal's message).
  std::string message;
  // Its own fields, an object ({"uri": ..., "retry_in_s": 2.5}).
  nlohmann::json fields = nlohmann::json::object();
};

}  // namespace yolo::daemon
