// SPDX-License-Identifier: Apache-2.0
// Events as JSON (tracking/object_event.cpp): what every output and events.json carry.
#include "tracking/object_event.h"

#include <gtest/gtest.h>

namespace yolo::tracking {
namespace {

ObjectEvent crossing() {
  ObjectEvent e;
  e.id = 42;
  e.kind = ObjectEventKind::kCross;
  e.camera = "main";
  e.place = "road";
  e.direction = Direction::kOut;
  e.track_id = 7;
  e.class_id = 2;
  e.label = "car";
  e.box = {10.25f, 20, 110, 80};
  e.score = 0.8125f;
  e.best_score = 0.9375f;
  e.wall = std::chrono::system_clock::time_point(std::chrono::milliseconds(1'800'000'000'123));
  e.frame_index = 1234;
  return e;
}

TEST(ObjectEvent, JsonNamesThePlaceByItsKind) {
  const nlohmann::json j = to_json(crossing());
  EXPECT_EQ(j["type"], "cross");
  EXPECT_EQ(j["line"], "road");
  EXPECT_EQ(j["direction"], "out");
  EXPECT_FALSE(j.contains("zone"));
  EXPECT_EQ(j["time"], "2027-01-15T08:00:00.123Z");
  EXPECT_EQ(j["box"], nlohmann::json::parse("[10.3, 20.0, 110.0, 80.0]"));
  ObjectEvent leave = crossing();
  leave.kind = ObjectEventKind::kLeave;
  leave.duration_s = 12.345;
  const nlohmann::json l = to_json(leave);
  EXPECT_EQ(l["zone"], "road");
  EXPECT_FALSE(l.contains("direction"));
  EXPECT_DOUBLE_EQ(l["duration_s"].get<double>(), 12.35);
}

TEST(ObjectEvent, ReadBackWhatItWrote) {
  for (ObjectEventKind kind : {ObjectEventKind::kNew, ObjectEventKind::kEnter,
                               ObjectEventKind::kCross, ObjectEventKind::kEnd}) {
    ObjectEvent e = crossing();
    e.kind = kind;
    if (kind == ObjectEventKind::kNew || kind == ObjectEventKind::kEnd) e.place.clear();
    const ObjectEvent back = object_event_from_json(to_json(e));
    EXPECT_EQ(to_json(back), to_json(e)) << event_kind_name(kind);
    EXPECT_EQ(back.wall, e.wall);
  }
}

TEST(ObjectEvent, BadJsonNamesTheKey) {
  nlohmann::json j = to_json(crossing());
  j.erase("track_id");
  EXPECT_THROW(
      {
        try {
          object_event_from_json(j);
        } catch (const std::runtime_error& e) {
          EXPECT_NE(std::string(e.what()).find("track_id"), std::string::npos) << e.what();
          throw;
        }
      },
      std::runtime_error);
  j = to_json(crossing());
  j["type"] = "teleport";
  EXPECT_THROW(object_event_from_json(j), std::runtime_error);
  j = to_json(crossing());
  j["time"] = "noon";
  EXPECT_THROW(object_event_from_json(j), std::runtime_error);
}

}  // namespace
}  // namespace yolo::tracking
