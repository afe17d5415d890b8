// SPDX-License-Identifier: Apache-2.0
// The lines section: counting lines, each crossing counted once, in or out.
#include <cmath>
#include <string>

#include "config/sections/places.h"
#include "config/sections/sections.h"

namespace yolo::config::section_files {

using namespace rows;

SectionSpec lines_spec() {
  return {"lines",
          "Counting lines (two points in frame fractions): a tracked object crossing one is "
          "counted once per crossing, in or out; docs/events.md.",
          true,
          "- {name: road, from: [0.05, 0.6], to: [0.95, 0.6], in: below, classes: [car, truck, "
          "bus, motorcycle]}"};
}

void add_lines_fields(std::vector<FieldSpec>& t) {
  // Both ends are needed, each in the frame.
  const Details end{.min = 0, .max = 1, .required = true};
  add_list_section(
      t, &Config::lines, "Each line a mapping; none by default.",
      {name_member<LineConfig>(), camera_member<LineConfig>(),
       member("from", &LineConfig::from, {}, end, "One end, [x, y] as fractions of the frame."),
       member("to", &LineConfig::to, {}, end, "The other end."),
       member("in", &LineConfig::in, tracking::Side::kBelow,
              {.choices = as_choices(tracking::kSideNames), .required = true},
              "The side that is \"in\" as seen in the image: crossing into it counts in, out of "
              "it counts out. above or below for a line that is not vertical, left or right for "
              "one that is not horizontal."),
       classes_member<LineConfig>(), anchor_member<LineConfig>(),
       member("hysteresis", &LineConfig::hysteresis, 0.01, {.min = 0, .max = 0.2},
              "How far past the line (a fraction of the frame's diagonal) an object must get "
              "before its crossing counts: a box jittering on the line counts nothing.")});
}

void check_line(const LineConfig& l, const std::string& key, Problems& problems) {
  const double dx = l.to.x - l.from.x;
  const double dy = l.to.y - l.from.y;
  if (std::hypot(dx, dy) < 0.01) {
    if (problems.usable(key + ".to")) {
      problems.add(key + ".to", problems.written_at(key + ".to"),
                   "is (almost) where from is: a line needs a length, its ends at least 0.01 of "
                   "the frame apart");
    }
    return;
  }
  const bool vertical = std::abs(dx) < 1e-9;
  const bool horizontal = std::abs(dy) < 1e-9;
  const bool up_down = l.in == tracking::Side::kAbove || l.in == tracking::Side::kBelow;
  if ((up_down && vertical) || (!up_down && horizontal)) {
    if (problems.usable(key + ".in")) {
      problems.add(key + ".in", problems.written_at(key + ".in"),
                   std::string("is ") + std::string(tracking::side_name(l.in)) + " on a " +
                       (vertical ? "vertical" : "horizontal") +
                       " line, which has no such side: use " +
                       (vertical ? "left or right" : "above or below"));
    }
  }
}

}  // namespace yolo::config::section_files
