// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include <nlohmann/json.hpp>

#include "tracking/object_event.h"

namespace yolo::daemon {

// The tracked-object events the daemon has seen: numbers them (1, 2, ... continuing across
// restarts), keeps the newest `history` for GET /api/events and the page, and is what the state
// folder keeps of them (events.json). Thread-safe: the inference thread adds, HTTP reads.
class EventLog {
 public:
  explicit EventLog(std::size_t history);

  // How many events are kept; the oldest go when it shrinks.
  void set_history(std::size_t history);
  // Gives each event the next id and keeps it.
  void add(std::vector<tracking::ObjectEvent>& events);

  struct Page {
    // Oldest first.
    std::vector<tracking::ObjectEvent> events;
    // Whether more events with a larger id are kept than this page holds.
    bool more = false;
  };
  // Kept events whose id is larger than `since`, oldest first, at most `limit`.
  Page since(std::int64_t since, std::size_t limit) const;
  // The newest `limit` kept, newest first.
  std::vector<tracking::ObjectEvent> latest(std::size_t limit) const;
  // The id of the newest event (0 before any).
  std::int64_t last_id() const;
  // Goes up with every add() and restore().
  std::uint64_t version() const;

  // {"last_id": N, "events": [...]}: what events.json holds.
  nlohmann::json to_json() const;
  // Takes what to_json() wrote (an earlier run's): ids go on from its last_id. Throws
  // std::runtime_error naming what is wrong when it is not such a document.
  void restore(const nlohmann::json& json);

 private:
  mutable std::mutex mutex_;
  std::size_t history_;
  std::deque<tracking::ObjectEvent> events_;
  std::int64_t last_id_ = 0;
  std::uint64_t version_ = 0;
};

}  // namespace yolo::daemon
