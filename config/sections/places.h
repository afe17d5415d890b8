// SPDX-License-Identifier: Apache-2.0
#pragma once

// What zones and lines have in common: the members both records have (a name unique among them, a
// camera, class names and an anchor), described once for both; rules across them in places.cpp.

#include <string>
#include <string_view>

#include "config/schema_rows.h"

namespace yolo::config::section_files {

// A place's name names MQTT topics and metric labels: letters, digits, _ and -, 1 to 64.
std::string place_name_rule(const Value& value);

// A polygon's rule (a zone's, a motion mask's) when it has fewer than three corners: what it has
// and an example; "" when it has three or more.
std::string fewer_than_three_corners(const Value& value, std::string_view polygon,
                                     std::string_view example);

template <class R>
rows::Member<R> name_member() {
  return rows::member("name", &R::name, "", {.rule = place_name_rule, .required = true},
                      "Its name, unique among the camera's zones and lines; it names MQTT topics, "
                      "metric labels and events.");
}

template <class R>
rows::Member<R> camera_member() {
  return rows::member("camera", &R::camera, std::string(kMainCamera),
                      "The camera it is drawn on (a name under cameras:); it may be left out "
                      "when there is one camera.");
}

template <class R>
rows::Member<R> classes_member() {
  return rows::member("classes", &R::classes, {},
                      "Class names (the model's, e.g. [person] or [car, truck]) that count; empty: "
                      "every class.");
}

template <class R>
rows::Member<R> anchor_member() {
  return rows::member("anchor", &R::anchor, tracking::Anchor::kBottomCenter,
                      {.choices = rows::as_choices(tracking::kAnchorNames)},
                      "The point of a box that stands for the object: bottom_center (where feet "
                      "and wheels touch the ground), center or top_center.");
}

}  // namespace yolo::config::section_files
