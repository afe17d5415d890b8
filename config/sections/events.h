// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <vector>

#include "tracking/vocabulary.h"

namespace yolo::config {

// What is kept of tracked-object events: snapshots and clips under the state folder within a
// disk budget, and which events the webhook sends. Rows and rules: config/sections/events.cpp.
struct EventsConfig {
  // Kinds of event that save the annotated frame (and a crop of the object at its best score).
  std::vector<tracking::ObjectEventKind> snapshots;
  bool crop{};
  // Kinds of event that save a clip; none: no clips, and no ring buffer of frames.
  std::vector<tracking::ObjectEventKind> clips;
  double clip_before_s{};
  double clip_after_s{};
  // Frames per second kept for clips.
  double clip_fps{};
  int jpeg_quality{};
  // The snapshots' and clips' budget: the oldest go first when either is exceeded.
  double max_mb{};
  double max_days{};
  // Free space the state folder's filesystem keeps: a file that would take it below is not
  // written (counted, and said once).
  double min_free_mb{};
  // Events kept for GET /api/events (the newest; older ones remain as files until the budget
  // removes them).
  int history{};
  // Kinds of event the webhook POSTs (when webhook.url is set).
  std::vector<tracking::ObjectEventKind> webhook;

  bool operator==(const EventsConfig&) const = default;
};

}  // namespace yolo::config
