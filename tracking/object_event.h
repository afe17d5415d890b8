// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "tracking/track.h"
#include "tracking/vocabulary.h"
#include "vision/detection.h"

namespace yolo::tracking {

// Something a tracked object did: the unit every output reports (SSE, /api/events, MQTT, the
// webhook, the field log, snapshots and clips).
struct ObjectEvent {
  // Numbered by whoever keeps the events (the daemon's event log: 1, 2, ... across restarts); 0
  // until then.
  std::int64_t id = 0;
  ObjectEventKind kind{};
  std::string camera;
  // The zone or line (enter, leave, loiter, cross); empty for new and end.
  std::string place;
  // For cross only.
  Direction direction{};
  std::int64_t track_id = 0;
  int class_id = 0;
  // The class's name (the model's).
  std::string label;
  // The box and score at this frame (the score is 0 when the track was unseen this frame).
  vision::Box box;
  float score = 0;
  float best_score = 0;
  std::int64_t best_frame = -1;
  vision::Box best_box;
  std::chrono::system_clock::time_point wall{};
  SteadyTime when{};
  std::int64_t frame_index = -1;
  // leave and loiter: seconds in the zone; end: the track's age; otherwise 0.
  double duration_s = 0;
};

// As JSON: {"id", "type", "camera", "zone" or "line", "direction", "track_id", "class", "label",
// "score", "best_score", "box": [x1, y1, x2, y2], "time" (UTC, ISO 8601), "frame", "duration_s"}.
nlohmann::json to_json(const ObjectEvent& event);
// What to_json wrote (an earlier run's events); `when` is left unset (steady time does not survive
// a restart). Throws std::runtime_error naming the key that is missing or wrong.
ObjectEvent object_event_from_json(const nlohmann::json& json);

}  // namespace yolo::tracking
