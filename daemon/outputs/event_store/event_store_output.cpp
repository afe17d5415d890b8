// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/event_store/event_store_output.h"

#include <algorithm>
#include <utility>

#include "daemon/outputs/event_store/event_kinds.h"

namespace yolo::daemon {

namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

EventStoreOutput::EventStoreOutput(Events& events, std::filesystem::path state_dir,
                                   EventStoreOptions options)
    : QueuedOutput("event-store", options.queue, options.stop_limit),
      events_(events),
      state_dir_(std::move(state_dir)),
      options_(options) {}

EventStoreOutput::~EventStoreOutput() {
  stop_worker();
}

void EventStoreOutput::configure(const config::Config& config) {
  config::EventsConfig events = config.events;
  if (!config.tracking.enabled) {
    events.snapshots.clear();
    events.clips.clear();
  }
  // A kind no place can make (enter, leave and loiter need a zone, cross a line) is left out:
  // asking for it would have every frame copied for the store (wants_frame) for nothing, as the
  // defaults would on a camera with no zone and no line.
  const bool zones = !config.zones.empty();
  const bool lines = !config.lines.empty();
  const auto possible = [&](tracking::ObjectEventKind k) {
    switch (k) {
      case tracking::ObjectEventKind::kEnter:
      case tracking::ObjectEventKind::kLeave:
      case tracking::ObjectEventKind::kLoiter:
        return zones;
      case tracking::ObjectEventKind::kCross:
        return lines;
      case tracking::ObjectEventKind::kNew:
      case tracking::ObjectEventKind::kEnd:
        return true;
    }
    return true;
  };
  for (auto* kinds : {&events.snapshots, &events.clips}) {
    std::erase_if(*kinds, [&](tracking::ObjectEventKind k) { return !possible(k); });
  }
  configure(events);
}

void EventStoreOutput::configure(const config::EventsConfig& events) {
  const unsigned snapshots = kind_bits(events.snapshots);
  const unsigned clips = kind_bits(events.clips);
  crop_ = events.crop;
  clip_period_s_ = 1.0 / std::max(events.clip_fps, 0.01);
  clip_kinds_ = clips;
  kinds_ = snapshots | clips;
  hand_over(events);
}

bool EventStoreOutput::wants_frame(const FrameResult& result) const {
  const unsigned kinds = kinds_;
  if (!kinds) return false;
  if (clip_kinds_) {
    std::lock_guard lock(ring_mutex_);
    if (ring_slot(result.camera, result.scene_time)) return true;
  }
  return wanted_besides_ring(result, kinds);
}

bool EventStoreOutput::ring_slot(const std::string& camera,
                                 std::chrono::steady_clock::time_point at) const {
  const auto due = ring_due_.find(camera);
  // A quarter of a period early still counts: a frame a little ahead of its slot is taken rather
  // than the next one, a period later.
  return due == ring_due_.end() || at >= due->second - clip_period() / 4;
}

std::chrono::steady_clock::duration EventStoreOutput::clip_period() const {
  return std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(clip_period_s_.load()));
}

bool EventStoreOutput::wanted_besides_ring(const FrameResult& result, unsigned kinds) const {
  for (const tracking::ObjectEvent& e : result.object_events) {
    if (has_kind(kinds, e.kind)) return true;
  }
  // A track's new best score: the store cuts its crop from this frame.
  return crop_ &&
         std::any_of(result.tracks.begin(), result.tracks.end(),
                     [&](const tracking::Track& t) { return t.best_frame == result.index; });
}

void EventStoreOutput::publish(std::shared_ptr<const FrameResult> result) {
  if (!result) return;
  const unsigned kinds = kinds_;
  if (!kinds || !result->frame || result->frame->empty()) return;
  bool ring = false;
  if (clip_kinds_) {
    const Clock::duration period = clip_period();
    std::lock_guard lock(ring_mutex_);
    if (ring_slot(result->camera, result->scene_time)) {
      ring = true;
      // From the slot it filled, so that the ring keeps the rate; after a gap (or at the first
      // frame), from this frame.
      auto& due = ring_due_[result->camera];
      due = result->scene_time - due >= period ? result->scene_time + period : due + period;
    }
  }
  if (ring || wanted_besides_ring(*result, kinds)) push({std::move(result), ring});
}

nlohmann::json EventStoreOutput::status() const {
  const EventStoreSnapshot s = snapshot();
  if (!s.enabled) return {{"ok", true}, {"enabled", false}};
  nlohmann::json j = {{"ok", s.warning.empty()},
                      {"enabled", true},
                      {"snapshots", s.total.snapshots},
                      {"crops", s.total.crops},
                      {"clips", s.total.clips},
                      {"skipped", s.total.skipped},
                      {"dropped", queue().dropped()},
                      {"queued", queue().size()},
                      {"bytes", s.bytes},
                      {"files", s.files},
                      {"removed", s.removed}};
  if (!s.warning.empty()) j["warning"] = s.warning;
  return j;
}

void EventStoreOutput::metrics(MetricsSink& sink) const {
  const EventStoreSnapshot s = snapshot();
  for (const auto& [camera, counts] : s.cameras) {
    const MetricsSink::Labels labels{{"camera", camera}};
    sink.follow_counter("yolo_edge_event_snapshots_total",
                        "Event snapshots saved (events.snapshots).", labels,
                        static_cast<double>(counts.snapshots));
    sink.follow_counter("yolo_edge_event_crops_total",
                        "Crops of the object at its best score saved (events.crop).", labels,
                        static_cast<double>(counts.crops));
    sink.follow_counter("yolo_edge_event_clips_total", "Event clips saved (events.clips).", labels,
                        static_cast<double>(counts.clips));
    sink.follow_counter("yolo_edge_event_media_skipped_total",
                        "Event snapshots, crops and clips not saved: the free-space floor "
                        "(events.min_free_mb), a disk that refused them, or larger than "
                        "events.max_mb.",
                        labels, static_cast<double>(counts.skipped));
  }
  sink.follow_counter("yolo_edge_event_media_dropped_total",
                      "Frames the event store let go because its queue was full (a slow disk).", {},
                      static_cast<double>(queue().dropped()));
  sink.set_gauge("yolo_edge_event_media_bytes",
                 "Bytes the event snapshots and clips take on the disk (within events.max_mb).", {},
                 static_cast<double>(s.bytes));
}

}  // namespace yolo::daemon
