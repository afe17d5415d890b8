// SPDX-License-Identifier: Apache-2.0
#include "tracking/object_event.h"

#include <chrono>
#include <stdexcept>
#include <string>

#include "text/format.h"
#include "text/time_format.h"

namespace yolo::tracking {

nlohmann::json to_json(const ObjectEvent& e) {
  const auto box = [](const vision::Box& b) {
    return nlohmann::json::array({text::rounded(b.x1, 1), text::rounded(b.y1, 1),
                                  text::rounded(b.x2, 1), text::rounded(b.y2, 1)});
  };
  nlohmann::json j = {{"id", e.id},
                      {"type", event_kind_name(e.kind)},
                      {"camera", e.camera},
                      {"track_id", e.track_id},
                      {"class", e.class_id},
                      {"label", e.label},
                      {"score", text::rounded(e.score, 3)},
                      {"best_score", text::rounded(e.best_score, 3)},
                      {"box", box(e.box)},
                      {"time", text::iso8601_utc(e.wall)},
                      {"frame", e.frame_index}};
  switch (e.kind) {
    case ObjectEventKind::kCross:
      j["line"] = e.place;
      j["direction"] = direction_name(e.direction);
      break;
    case ObjectEventKind::kEnter:
    case ObjectEventKind::kLeave:
    case ObjectEventKind::kLoiter:
      j["zone"] = e.place;
      break;
    case ObjectEventKind::kNew:
    case ObjectEventKind::kEnd:
      break;
  }
  if (e.kind == ObjectEventKind::kLeave || e.kind == ObjectEventKind::kLoiter ||
      e.kind == ObjectEventKind::kEnd) {
    j["duration_s"] = text::rounded(e.duration_s, 2);
  }
  return j;
}

namespace {

template <class T>
T required(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end()) throw std::runtime_error(std::string("an event has no \"") + key + "\"");
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    throw std::runtime_error(std::string("an event's \"") + key +
                             "\" has the wrong type: " + it->dump());
  }
}

vision::Box box_from(const nlohmann::json& j, const char* key) {
  const auto v = required<std::vector<float>>(j, key);
  if (v.size() != 4) {
    throw std::runtime_error(std::string("an event's \"") + key + "\" must be [x1, y1, x2, y2]");
  }
  return {v[0], v[1], v[2], v[3]};
}

}  // namespace

ObjectEvent object_event_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::runtime_error("an event must be a JSON object, got " + j.dump());
  ObjectEvent e;
  e.id = required<std::int64_t>(j, "id");
  const auto type = required<std::string>(j, "type");
  const auto kind = event_kind(type);
  if (!kind) throw std::runtime_error("an event's type \"" + type + "\" is not known");
  e.kind = *kind;
  e.camera = required<std::string>(j, "camera");
  e.track_id = required<std::int64_t>(j, "track_id");
  e.class_id = required<int>(j, "class");
  e.label = required<std::string>(j, "label");
  e.score = required<float>(j, "score");
  e.best_score = required<float>(j, "best_score");
  e.box = box_from(j, "box");
  const auto time = required<std::string>(j, "time");
  const auto wall = text::parse_iso8601_utc(time);
  if (!wall) throw std::runtime_error("an event's \"time\" is not UTC ISO 8601: " + time);
  e.wall = *wall;
  e.frame_index = required<std::int64_t>(j, "frame");
  if (e.kind == ObjectEventKind::kCross) {
    e.place = required<std::string>(j, "line");
    const auto direction = required<std::string>(j, "direction");
    if (direction != direction_name(Direction::kIn) &&
        direction != direction_name(Direction::kOut)) {
      throw std::runtime_error("an event's direction \"" + direction + "\" is neither in nor out");
    }
    e.direction = direction == direction_name(Direction::kIn) ? Direction::kIn : Direction::kOut;
  } else if (e.kind != ObjectEventKind::kNew && e.kind != ObjectEventKind::kEnd) {
    e.place = required<std::string>(j, "zone");
  }
  if (j.contains("duration_s")) e.duration_s = required<double>(j, "duration_s");
  return e;
}

}  // namespace yolo::tracking
