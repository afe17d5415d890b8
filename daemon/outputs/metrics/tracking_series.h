// SPDX-License-Identifier: Apache-2.0
#pragma once

// The Prometheus series of tracked objects (tracking.enabled): line crossings and zone entries
// that never go back, object events, zone occupancy and active tracks, per camera.
#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "daemon/core/frame_result.h"
#include "daemon/outputs/metrics/metric_families.h"
#include "tracking/vocabulary.h"

namespace yolo::daemon::metrics {

// A counter that follows a total kept elsewhere (a line's or zone's counts) and never goes back:
// when the total starts again (its counts were reset, or the place was removed and configured
// anew: `since` moves, or the total falls), everything counted since is new and is added.
struct FollowedTotal {
  prometheus::Counter* counter = nullptr;
  std::chrono::system_clock::time_point since{};
  std::int64_t seen = 0;
};

// The tracking series (tracking.enabled): what the scene and its events say, per camera.
struct TrackingSeries {
  explicit TrackingSeries(prometheus::Registry& registry)
      : crossings(counter_family(registry, "yolo_edge_line_crossings_total",
                                 "Crossings of each counting line, by camera, line, direction "
                                 "(in: into the line's in side) and class label.")),
        entries(counter_family(registry, "yolo_edge_zone_entries_total",
                               "Tracked objects that entered each zone, by camera, zone and "
                               "class label.")),
        events(counter_family(registry, "yolo_edge_object_events_total",
                              "Tracked-object events (new, enter, leave, cross, loiter, end), "
                              "by camera and type.")),
        occupancy_family(gauge_family(registry, "yolo_edge_zone_occupancy",
                                      "Tracked objects in each zone now, by camera and zone.")),
        occupancy(occupancy_family),
        tracks(gauge_family(registry, "yolo_edge_active_tracks",
                            "Confirmed tracks alive at the last frame, by camera.")) {}

  // Brings the series up to `result`: its events counted; the counts, occupancy and tracks
  // followed. The scene is shared by the results until it changes, so an unchanged one costs a
  // pointer comparison.
  void follow(const FrameResult& result) {
    for (const tracking::ObjectEvent& e : result.object_events) event_counter(e).Increment();
    if (result.scene != scene) {
      scene = result.scene;
      if (scene) follow_scene(*scene);
    }
    if (!scene) {
      if (tracks_gauge) tracks.Remove(std::exchange(tracks_gauge, nullptr));
      return;
    }
    if (!tracks_gauge || tracks_camera != scene->camera) {
      if (tracks_gauge) tracks.Remove(tracks_gauge);
      tracks_camera = scene->camera;
      tracks_gauge = &tracks.Add({{"camera", valid_utf8(tracks_camera)}});
    }
    tracks_gauge->Set(static_cast<double>(result.tracks.size()));
  }

  prometheus::Counter& event_counter(const tracking::ObjectEvent& e) {
    auto it = std::find_if(event_counters.begin(), event_counters.end(),
                           [&](const auto& c) { return c.first == e.camera; });
    if (it == event_counters.end()) it = event_counters.insert(it, {e.camera, {}});
    prometheus::Counter*& counter = it->second[static_cast<std::size_t>(e.kind)];
    if (!counter) {
      counter = &events.Add({{"camera", valid_utf8(e.camera)},
                             {"type", std::string(tracking::event_kind_name(e.kind))}});
    }
    return *counter;
  }

  void follow_scene(const SceneState& scene) {
    const std::string camera = valid_utf8(scene.camera);
    for (const tracking::PlaceCounts& place : scene.counts.places) {
      const std::string place_camera =
          valid_utf8(place.camera.empty() ? scene.camera : place.camera);
      for (const auto& [label, tally] : place.total) {
        if (place.line) {
          for (const auto direction : {tracking::Direction::kIn, tracking::Direction::kOut}) {
            follow_total(crossings,
                         {{"camera", place_camera},
                          {"line", valid_utf8(place.name)},
                          {"direction", std::string(tracking::direction_name(direction))},
                          {"class", valid_utf8(label)}},
                         place.since, direction == tracking::Direction::kIn ? tally.in : tally.out);
          }
        } else {
          follow_total(entries,
                       {{"camera", place_camera},
                        {"zone", valid_utf8(place.name)},
                        {"class", valid_utf8(label)}},
                       place.since, tally.in);
        }
      }
    }
    GaugeSnapshot::Values zones;
    for (const config::ZoneConfig& zone : scene.zones) {
      const auto it = scene.occupancy.find(zone.name);
      zones.push_back({{{"camera", camera}, {"zone", valid_utf8(zone.name)}},
                       it != scene.occupancy.end() ? static_cast<double>(it->second) : 0.0});
    }
    occupancy.update(zones);
  }

  void follow_total(prometheus::Family<prometheus::Counter>& family,
                    const prometheus::Labels& labels, std::chrono::system_clock::time_point since,
                    std::int64_t total) {
    auto [it, fresh] = followed.try_emplace(labels);
    FollowedTotal& f = it->second;
    if (fresh) f.counter = &family.Add(labels);
    const bool restarted = fresh || since != f.since || total < f.seen;
    const std::int64_t added = restarted ? total : total - f.seen;
    if (added > 0) f.counter->Increment(static_cast<double>(added));
    f.since = since;
    f.seen = total;
  }

  prometheus::Family<prometheus::Counter>& crossings;
  prometheus::Family<prometheus::Counter>& entries;
  prometheus::Family<prometheus::Counter>& events;
  prometheus::Family<prometheus::Gauge>& occupancy_family;
  GaugeSnapshot occupancy;
  prometheus::Family<prometheus::Gauge>& tracks;

  // The scene last followed, and the counters following its counts, by series.
  std::shared_ptr<const SceneState> scene;
  std::map<prometheus::Labels, FollowedTotal> followed;
  // The events' counters by camera, then by kind.
  std::vector<
      std::pair<std::string, std::array<prometheus::Counter*, tracking::kObjectEventNames.size()>>>
      event_counters;
  // The active tracks' series, and its camera.
  prometheus::Gauge* tracks_gauge = nullptr;
  std::string tracks_camera;
};

}  // namespace yolo::daemon::metrics
