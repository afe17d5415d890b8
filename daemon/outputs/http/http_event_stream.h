// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>

#include "config/sections/events.h"
#include "daemon/base/broadcast.h"
#include "daemon/core/event_log.h"
#include "daemon/core/frame_result.h"
#include "daemon/outputs/http/http_waiting.h"

namespace yolo::daemon::http {

// GET /api/detections: server-sent events of each processed frame's detections and tracks, each
// tracked-object event (read from the event log by id, so none is lost to a slow client; a
// client coming back with Last-Event-ID gets what it missed), and the counts when they change.
// A frame's message is made once, on the encoder thread, for every client.
class EventStream {
 public:
  // `object_events`: the events kept (null: none); `state_dir`: where their files are.
  EventStream(WaitingExchanges& waiting, const EventLog* object_events,
              std::filesystem::path state_dir, std::chrono::seconds write_timeout);

  // Which events get a snapshot, a crop and a clip (events.*): an event is sent with their
  // addresses before they are written.
  void configure(const config::EventsConfig& events);
  int clients() const { return clients_.load(); }
  // Sends `ex` the stream (its place under http.max_viewers is free).
  int serve(const std::shared_ptr<Exchange>& ex);
  // A result for every client: its detections, and the counts when they changed (the encoder
  // thread's call).
  void take(const FrameResult& result);
  // The server starts serving / stops: clients end.
  void reopen() { messages_.reopen(); }
  void close() { messages_.close(); }

 private:
  // The stream's body, a piece at a time; 0 after suspending until there is more.
  long body(const std::shared_ptr<Exchange>& ex, char* buffer, std::size_t max);
  // The next piece of the stream's text: object events it has not had, new counts, frames.
  void next(const std::shared_ptr<Exchange>& ex);

  WaitingExchanges& waiting_;
  const EventLog* const object_events_;
  const std::filesystem::path state_dir_;
  const std::chrono::seconds write_timeout_;

  mutable std::mutex mutex_;
  config::EventsConfig events_;
  // The counts message for the newest scene that changed them, and that scene.
  std::shared_ptr<const std::string> counts_message_;
  std::shared_ptr<const SceneState> counts_scene_;
  std::uint64_t counts_version_ = 0;

  // Each frame's message, made once for every client.
  Broadcast<std::shared_ptr<const std::string>> messages_{64};
  std::atomic<int> clients_{0};
};

}  // namespace yolo::daemon::http
