// SPDX-License-Identifier: Apache-2.0
// The events section: what is kept of tracked-object events and who hears of them.
#include "config/schema_rows.h"
#include "config/sections/sections.h"

namespace yolo::config::section_files {

using namespace rows;

namespace {

Value kinds(std::initializer_list<tracking::ObjectEventKind> list) {
  std::vector<std::string> names;
  for (const auto k : list) names.emplace_back(tracking::event_kind_name(k));
  return names;
}

std::vector<std::string_view> kind_names() {
  return {tracking::kObjectEventNames.begin(), tracking::kObjectEventNames.end()};
}

}  // namespace

SectionSpec events_spec() {
  return {"events",
          "What is kept of tracked-object events (snapshots, clips, within a disk budget under "
          "the state folder) and which ones the webhook sends; docs/events.md."};
}

void add_events_fields(std::vector<FieldSpec>& t) {
  const SectionAdder<EventsConfig> add{t, "events", &Config::events};
  using F = FieldType;
  using K = tracking::ObjectEventKind;
  add({.name = "snapshots",
       .type = F::kNameList,
       .default_value = kinds({K::kEnter, K::kCross, K::kLoiter}),
       .choices = kind_names(),
       .description = "Kinds of event that save the annotated frame as a JPEG."},
      &EventsConfig::snapshots);
  add({.name = "crop",
       .type = F::kBool,
       .default_value = true,
       .description = "With each snapshot, the object cut out of the frame where it scored best."},
      &EventsConfig::crop);
  add({.name = "clips",
       .type = F::kNameList,
       .default_value = no_names(),
       .choices = kind_names(),
       .description = "Kinds of event that save a Motion-JPEG clip from clip_before_s before to "
                      "clip_after_s after it; none: no clips and no frames kept for them."},
      &EventsConfig::clips);
  add({.name = "clip_before_s",
       .type = F::kFloat,
       .default_value = 5.0,
       .min = 0,
       .max = 60,
       .description = "Seconds of a clip before its event."},
      &EventsConfig::clip_before_s);
  add({.name = "clip_after_s",
       .type = F::kFloat,
       .default_value = 5.0,
       .min = 0,
       .max = 60,
       .description = "Seconds of a clip after its event."},
      &EventsConfig::clip_after_s);
  add({.name = "clip_fps",
       .type = F::kFloat,
       .default_value = 5.0,
       .min = 0.5,
       .max = 30,
       .description = "Frames per second kept for clips."},
      &EventsConfig::clip_fps);
  add({.name = "jpeg_quality",
       .type = F::kInt,
       .default_value = whole(80),
       .min = 10,
       .max = 100,
       .description = "JPEG quality of snapshots and clips."},
      &EventsConfig::jpeg_quality);
  add({.name = "max_mb",
       .type = F::kFloat,
       .default_value = 1000.0,
       .min = 1,
       .max = 1e6,
       .description = "Most megabytes snapshots and clips take; the oldest go first."},
      &EventsConfig::max_mb);
  add({.name = "max_days",
       .type = F::kFloat,
       .default_value = 14.0,
       .min = 0.01,
       .max = 3650,
       .description = "Snapshots and clips older than this many days are removed."},
      &EventsConfig::max_days);
  add({.name = "min_free_mb",
       .type = F::kFloat,
       .default_value = 256.0,
       .min = 0,
       .max = 1e6,
       .description = "Free megabytes the state folder's disk keeps: a file that would take it "
                      "below is not written (counted, and said once)."},
      &EventsConfig::min_free_mb);
  add({.name = "history",
       .type = F::kInt,
       .default_value = whole(500),
       .min = 10,
       .max = 100000,
       .description = "Events kept for GET /api/events and the page, across restarts."},
      &EventsConfig::history);
  add({.name = "webhook",
       .type = F::kNameList,
       .default_value = kinds({K::kNew, K::kEnter, K::kLeave, K::kCross, K::kLoiter}),
       .choices = kind_names(),
       .description = "Kinds of event the webhook POSTs, one request each (when webhook.url is "
                      "set)."},
      &EventsConfig::webhook);
}

void check_events(const EventsConfig& e, Problems& problems) {
  if (!e.clips.empty() && e.clip_before_s + e.clip_after_s <= 0 &&
      problems.usable("events.clips")) {
    problems.add("events.clips", problems.written_at("events.clips"),
                 "asks for clips while events.clip_before_s and events.clip_after_s are both 0: "
                 "give them seconds, or set events.clips: []");
  }
}

}  // namespace yolo::config::section_files
