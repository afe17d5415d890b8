// SPDX-License-Identifier: Apache-2.0
// The zones section: areas of the frame whose tracked objects are counted, timed and reported.
#include <cmath>

#include "config/sections/places.h"
#include "config/sections/sections.h"

namespace yolo::config::section_files {

using namespace rows;

namespace {

std::string three_points(const Value& value) {
  if (std::string few =
          fewer_than_three_corners(value, "a zone", "[[0.1, 0.5], [0.4, 0.5], [0.4, 0.9]]");
      !few.empty()) {
    return few;
  }
  const auto& points = std::get<std::vector<std::vector<double>>>(value);
  // Twice the polygon's area (the shoelace formula): corners on one line hold nothing.
  double twice_area = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& a = points[i];
    const auto& b = points[(i + 1) % points.size()];
    twice_area += a.at(0) * b.at(1) - b.at(0) * a.at(1);
  }
  if (std::abs(twice_area) < 2e-4) {
    return "encloses (almost) no area: its corners lie on one line or on top of each other; "
           "give corners around the area, e.g. [[0.1, 0.5], [0.4, 0.5], [0.4, 0.9]]";
  }
  return "";
}

}  // namespace

SectionSpec zones_spec() {
  return {"zones",
          "Areas of the frame (polygons in frame fractions, so a new resolution does not move "
          "them): enter, leave and loiter events, occupancy and counts per zone; docs/events.md.",
          true,
          "- {name: gate, points: [[0.1, 0.5], [0.45, 0.5], [0.45, 0.95], [0.1, 0.95]], classes: "
          "[person], loiter_s: 30}"};
}

void add_zones_fields(std::vector<FieldSpec>& t) {
  add_list_section(
      t, &Config::zones, "Each zone a mapping; none by default.",
      {name_member<ZoneConfig>(), camera_member<ZoneConfig>(),
       member("points", &ZoneConfig::points, {},
              {.min = 0, .max = 1, .rule = three_points, .required = true},
              "Its corners in order, [x, y] each a fraction of the frame: (0, 0) top left, (1, 1) "
              "bottom right."),
       classes_member<ZoneConfig>(), anchor_member<ZoneConfig>(),
       member("loiter_s", &ZoneConfig::loiter_s, 0.0, {.min = 0, .max = 86400},
              "An object in the zone longer than this many seconds raises a loiter event (once "
              "per stay); 0: never."),
       member("inertia_s", &ZoneConfig::inertia_s, 0.3, {.min = 0, .max = 10},
              "Seconds an object must be inside (or outside) before it enters (or leaves): a box "
              "flickering on the edge counts nothing.")});
}

}  // namespace yolo::config::section_files
