// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <nlohmann/json.hpp>

#include "daemon/core/event.h"
#include "daemon/core/logger.h"

namespace yolo::test {

// An event as the tests look into it: its own fields, with "event" (its kind's name), "level"
// and "message" beside them, as the field log writes the line.
inline nlohmann::json recorded(const daemon::Event& e) {
  nlohmann::json j = e.fields;
  j["event"] = fieldlog::event_name(e.kind);
  j["level"] = daemon::level_name(e.level);
  j["message"] = e.message;
  return j;
}

}  // namespace yolo::test
