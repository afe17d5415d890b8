// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "daemon/core/events.h"
#include "daemon/core/queued_output.h"

namespace yolo::daemon {

// Fixed bounds of the event store, which tests and the benchmark change. Taken at construction.
struct EventStoreOptions {
  // Frames waiting for the thread; beyond it the oldest is dropped (and counted). Each holds its
  // frame's pixels, so this is also what the store may hold of them.
  std::size_t queue = 12;
  // How long stop() waits for the thread to write what it holds (clips in progress).
  std::chrono::milliseconds stop_limit{5000};
  // The longest a clip waits for frames after its end is due (the camera stopped).
  std::chrono::milliseconds clip_grace{1000};
  // How long files must be written with none skipped for a skipped-files outage to be over (the
  // next skip is said again, and the status's warning goes).
  std::chrono::milliseconds outage_quiet{60'000};
};

// A frame handed to the store's thread, and whether it is one of the clips' ring (publish()
// picks those at events.clip_fps).
struct EventStoreFrame {
  std::shared_ptr<const FrameResult> result;
  bool ring = false;
};

// What the store's thread reports; EventStoreOutput::status() and metrics() word it.
struct EventStoreSnapshot {
  bool enabled = false;
  struct Counts {
    std::int64_t snapshots = 0;
    std::int64_t crops = 0;
    std::int64_t clips = 0;
    // Files not written: the free-space floor, a disk that refused them, larger than the budget.
    std::int64_t skipped = 0;
  };
  Counts total;
  // By the events' camera.
  std::map<std::string, Counts, std::less<>> cameras;
  // What the events folder holds of ours.
  std::int64_t bytes = 0;
  std::int64_t files = 0;
  // Files the budget removed (events.max_mb, events.max_days).
  std::int64_t removed = 0;
  // Why the last file was not written; cleared when the outage is over.
  std::string warning;
};

// Snapshots and clips of tracked-object events (docs/events.md, "Snapshots and clips"), kept in
// event_media_dir(state_dir) within a disk budget. publish() only decides whether a frame matters
// (an event of a kind events.snapshots or events.clips names, a frame for the clips' ring at
// events.clip_fps, a track's new best score for its crop) and queues it; the store's own thread,
// at nice 10, draws and encodes the frames, keeps the ring of annotated JPEGs for
// events.clip_before_s, muxes clips (Motion-JPEG in AVI, the JPEGs as they are) once
// events.clip_after_s has passed, and writes every file once: to a temporary name, flushed, then
// renamed. Before each file it removes the oldest events' files beyond events.max_mb (and those
// older than events.max_days, checked every minute), and never takes the disk below
// events.min_free_mb: such a file is skipped, counted and said once until writing works again
// (files written for EventStoreOptions::outage_quiet with none skipped).
class EventStoreOutput
    : public QueuedOutput<EventStoreFrame, config::EventsConfig, EventStoreSnapshot> {
 public:
  EventStoreOutput(Events& events, std::filesystem::path state_dir, EventStoreOptions options = {});
  ~EventStoreOutput() override;

  // Takes events.* (nothing is kept while tracking.enabled is off: there are no events).
  void configure(const config::Config& config) override;
  // The same from the events section alone (tracking taken as on).
  void configure(const config::EventsConfig& events);
  void publish(std::shared_ptr<const FrameResult> result) override;
  // Only frames it will use: one with an event of a chosen kind, a clip ring's slot, a track's
  // new best score (for its crop).
  bool wants_frame(const FrameResult& result) const override;
  // {"ok", "enabled"} and, when enabled, "snapshots", "crops", "clips", "skipped", "dropped"
  // (frames the queue let go), "queued", "bytes", "files", "removed", and "warning" after a
  // skipped file until writing works again.
  nlohmann::json status() const override;
  // yolo_edge_event_{snapshots,crops,clips}_total{camera}, yolo_edge_event_media_skipped_total
  // {camera}, yolo_edge_event_media_dropped_total, yolo_edge_event_media_bytes.
  void metrics(MetricsSink& sink) const override;

 private:
  // The thread's state and work (event_store_worker.cpp).
  class Worker;

  void run() override;
  // Whether a frame of `camera` at scene time `at` fills its clips' ring's next slot
  // (ring_mutex_ held).
  bool ring_slot(const std::string& camera, std::chrono::steady_clock::time_point at) const;
  std::chrono::steady_clock::duration clip_period() const;
  // An event of one of `kinds`, or a track's new best score when crops are kept.
  bool wanted_besides_ring(const FrameResult& result, unsigned kinds) const;

  Events& events_;
  const std::filesystem::path state_dir_;
  const EventStoreOptions options_;

  // Read by publish(): the kinds that save something (bit per kind), snapshots' and clips' apart.
  std::atomic<unsigned> kinds_{0};
  std::atomic<unsigned> clip_kinds_{0};
  std::atomic<bool> crop_{false};
  std::atomic<double> clip_period_s_{0};
  // When each camera's ring takes its next frame (the inference thread's own).
  mutable std::mutex ring_mutex_;
  std::map<std::string, std::chrono::steady_clock::time_point, std::less<>> ring_due_;
};

}  // namespace yolo::daemon
