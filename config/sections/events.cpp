// SPDX-License-Identifier: Apache-2.0
// The events section: what is kept of tracked-object events and who hears of them.
#include "config/schema_rows.h"
#include "config/sections/sections.h"

namespace yolo::config::section_files {

using namespace rows;

SectionSpec events_spec() {
  return {"events",
          "What is kept of tracked-object events (snapshots, clips, within a disk budget under "
          "the state folder) and which ones the webhook sends; docs/events.md."};
}

void add_events_fields(std::vector<FieldSpec>& t) {
  const SectionAdder<EventsConfig> add{t, &Config::events};
  using K = tracking::ObjectEventKind;
  // Each list of kinds names them as tracking/ does.
  const Details kinds{.choices = as_choices(tracking::kObjectEventNames)};
  add("snapshots", &EventsConfig::snapshots, {K::kEnter, K::kCross, K::kLoiter}, kinds,
      "Kinds of event that save the annotated frame as a JPEG.");
  add("crop", &EventsConfig::crop, true,
      "With each snapshot, the object cut out of the frame where it scored best.");
  add("clips", &EventsConfig::clips, {}, kinds,
      "Kinds of event that save a Motion-JPEG clip from clip_before_s before to clip_after_s after "
      "it; none: no clips and no frames kept for them.");
  add("clip_before_s", &EventsConfig::clip_before_s, 5.0, {.min = 0, .max = 60},
      "Seconds of a clip before its event.");
  add("clip_after_s", &EventsConfig::clip_after_s, 5.0, {.min = 0, .max = 60},
      "Seconds of a clip after its event.");
  add("clip_fps", &EventsConfig::clip_fps, 5.0, {.min = 0.5, .max = 30},
      "Frames per second kept for clips.");
  add("jpeg_quality", &EventsConfig::jpeg_quality, 80, {.min = 10, .max = 100},
      "JPEG quality of snapshots and clips.");
  add("max_mb", &EventsConfig::max_mb, 1000.0, {.min = 1, .max = 1e6},
      "Most megabytes snapshots and clips take; the oldest go first.");
  add("max_days", &EventsConfig::max_days, 14.0, {.min = 0.01, .max = 3650},
      "Snapshots and clips older than this many days are removed.");
  add("min_free_mb", &EventsConfig::min_free_mb, 256.0, {.min = 0, .max = 1e6},
      "Free megabytes the state folder's disk keeps, for snapshots, clips and the calibration "
      "reservoir's frames alike: a file that would take it below is not written (counted, and "
      "said once).");
  add("history", &EventsConfig::history, 500, {.min = 10, .max = 100000},
      "Events kept for GET /api/events and the page, across restarts.");
  add("webhook", &EventsConfig::webhook, {K::kNew, K::kEnter, K::kLeave, K::kCross, K::kLoiter},
      kinds, "Kinds of event the webhook POSTs, one request each (when webhook.url is set).");
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
