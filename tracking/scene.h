// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <opencv2/core/types.hpp>

#include "config/sections/lines.h"
#include "config/sections/zones.h"
#include "tracking/counts.h"
#include "tracking/object_event.h"
#include "tracking/track.h"
#include "vision/class_names.h"

namespace yolo::tracking {

// One camera's zones and lines: turns each frame's tracks into events (new, enter, leave, cross,
// loiter, end) and counts. Zones and lines are in frame fractions and placed on each frame's own
// size. Not thread-safe: one caller (the inference thread, or `yolo-edge track`).
class Scene {
 public:
  explicit Scene(std::string camera);
  ~Scene();
  Scene(Scene&&) noexcept;
  Scene& operator=(Scene&&) noexcept;

  // The zones and lines of this camera (those of other cameras are ignored), and the model's
  // class names (which the places' class filters name). A place whose definition is unchanged
  // keeps its counts and the state of the objects in it; a changed or new one starts from zero;
  // one no longer configured is dropped.
  void configure(const std::vector<config::ZoneConfig>& zones,
                 const std::vector<config::LineConfig>& lines, const vision::ClassNames& names);

  // Counts kept from an earlier run (the state folder): taken for the places configured with
  // the same camera and name.
  void restore(const Counts& counts);

  // One frame: its track update, its size, when it was captured; the events it made, in order
  // (new before enter before cross, ... , end last). Only a track seen this frame moves in and
  // out of zones and across lines (a prediction through a miss is a guess); a new frame size
  // forgets where tracks stood against lines, so a camera back at another resolution makes no
  // phantom crossing.
  std::vector<ObjectEvent> update(const TrackUpdate& update, cv::Size frame,
                                  std::chrono::system_clock::time_point wall, SteadyTime when,
                                  std::int64_t frame_index);

  Counts counts() const;
  // Tracks whose anchor is in the zone now (confirmed, alive); -1 for a name that is no zone.
  int occupancy(std::string_view zone) const;
  // Starts a place's counts again (since = now); false when this camera has no place so named.
  bool reset(std::string_view place, std::chrono::system_clock::time_point now);
  // Goes up by one whenever the counts change: the daemon saves them when it moved.
  std::uint64_t version() const;

  const std::string& camera() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace yolo::tracking
