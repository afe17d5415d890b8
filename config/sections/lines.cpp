// SPDX-License-Identifier: Apache-2.0
// The lines section: counting lines, each crossing counted once, in or out.
#include <cmath>
#include <string>

#include "config/schema_rows.h"
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
  using F = FieldType;
  const auto end = [](std::string_view name, std::string_view description) {
    return FieldSpec{.section = "lines",
                     .name = name,
                     .type = F::kPoint,
                     .default_value = std::vector<double>{0, 0},
                     .min = 0,
                     .max = 1,
                     .description = description,
                     .required = true};
  };
  FieldSpec lines{
      .section = "lines",
      .name = "",
      .type = F::kRecordList,
      .default_value = no_records(),
      .description = "Each line a mapping; none by default.",
      .members = {
          name_member("lines",
                      "Its name, unique among the camera's zones and lines; it names "
                      "MQTT topics, metric labels and events."),
          camera_member("lines"),
          end("from", "One end, [x, y] as fractions of the frame."),
          end("to", "The other end."),
          {.section = "lines",
           .name = "in",
           .type = F::kEnum,
           .default_value = text("below"),
           .choices = {tracking::kSideNames.begin(), tracking::kSideNames.end()},
           .description = "The side that is \"in\" as seen in the image: crossing into it counts "
                          "in, out of it counts out. above or below for a line that is not "
                          "vertical, left or right for one that is not horizontal.",
           .required = true},
          classes_member("lines"),
          anchor_member("lines"),
          {.section = "lines",
           .name = "hysteresis",
           .type = F::kFloat,
           .default_value = 0.01,
           .min = 0,
           .max = 0.2,
           .description = "How far past the line (a fraction of the frame's diagonal) an object "
                          "must get before its crossing counts: a box jittering on the line "
                          "counts nothing."},
      }};
  bind_list_section(lines, &Config::lines, &LineConfig::name, &LineConfig::camera,
                    &LineConfig::from, &LineConfig::to, &LineConfig::in, &LineConfig::classes,
                    &LineConfig::anchor, &LineConfig::hysteresis);
  t.push_back(std::move(lines));
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
