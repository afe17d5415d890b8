// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <nlohmann/json.hpp>

#include "daemon/base/bounded_queue.h"
#include "daemon/base/wake_fd.h"
#include "daemon/base/worker.h"
#include "daemon/core/publisher.h"

namespace yolo::daemon {

// The shape of an output that works on a thread of its own (field log, GPIO, MQTT, webhook, the
// calibration reservoir), so that what the other threads call only hands over and returns:
// - push() queues an item for the thread (bounded: when full the oldest is dropped and counted,
//   never the producer blocked) and wakes it;
// - hand_over() gives the thread new Settings from configure() (newest only, versioned), which
//   the thread takes with take_settings() before its next piece of work;
// - the thread sleeps in queue().pop() or polls wake_fd() beside descriptors of its own;
// - report() publishes the thread's Snapshot of itself, which status() hands out;
// - stop() closes the queue, wakes the thread and waits for run() to return within the limit.
// A subclass writes run(), its publish calls and configure(); its destructor calls stop_worker()
// (run() uses the subclass's members, which are gone by the time this destructor runs).
template <class Item, class Settings, class Snapshot = nlohmann::json>
class QueuedOutput : public Publisher {
 public:
  std::string_view name() const override { return name_; }
  void start() override {
    if (!worker_.running()) worker_.start(name_, [this] { run(); });
  }
  // The snapshot itself when it is the status JSON; other snapshots are worded by the subclass.
  nlohmann::json status() const override {
    if constexpr (std::is_same_v<Snapshot, nlohmann::json>) {
      return snapshot();
    } else {
      return nlohmann::json::object();
    }
  }
  bool stop() override { return stop_worker(); }

 protected:
  // `name` names the output and its thread; `capacity` bounds the queue; `stop_limit` is how long
  // stop() waits for run() to return (the thread's own waits must be bounded below it).
  QueuedOutput(std::string name, std::size_t capacity, std::chrono::milliseconds stop_limit,
               Settings settings = {}, Snapshot snapshot = {})
      : name_(std::move(name)),
        stop_limit_(stop_limit),
        queue_(capacity),
        settings_(std::move(settings)),
        snapshot_(std::move(snapshot)) {}

  // The thread's body: returns once the queue is closed and what it holds is done.
  virtual void run() = 0;

  // False once stopped (the item is not queued).
  bool push(Item item) {
    if (!queue_.push(std::move(item))) return false;
    wake_.wake();
    return true;
  }
  void hand_over(Settings settings) {
    {
      std::lock_guard lock(settings_mutex_);
      settings_ = std::move(settings);
      ++settings_version_;
    }
    wake_.wake();
  }
  // The settings last handed over, for any thread.
  Settings settings() const {
    std::lock_guard lock(settings_mutex_);
    return settings_;
  }
  // On the thread: the settings handed over since its last call, if any.
  std::optional<Settings> take_settings() {
    std::lock_guard lock(settings_mutex_);
    if (settings_version_ == settings_taken_) return std::nullopt;
    settings_taken_ = settings_version_;
    return settings_;
  }
  void report(Snapshot snapshot) {
    std::lock_guard lock(snapshot_mutex_);
    snapshot_ = std::move(snapshot);
  }
  Snapshot snapshot() const {
    std::lock_guard lock(snapshot_mutex_);
    return snapshot_;
  }
  BoundedQueue<Item>& queue() { return queue_; }
  const BoundedQueue<Item>& queue() const { return queue_; }
  // Wakes the thread without an item (a state it watches changed).
  void wake() const { wake_.wake(); }
  // For the thread's poll(): readable after push(), hand_over(), wake() and stop().
  const WakeFd& wake_fd() const { return wake_; }
  // True when run() returned within the stop limit.
  bool stop_worker() {
    queue_.close();
    wake_.wake();
    return worker_.stop_within(stop_limit_);
  }

 private:
  const std::string name_;
  const std::chrono::milliseconds stop_limit_;
  BoundedQueue<Item> queue_;
  WakeFd wake_;

  mutable std::mutex settings_mutex_;
  Settings settings_;
  std::uint64_t settings_version_ = 0;
  // The version the thread took last (the thread's own).
  std::uint64_t settings_taken_ = 0;

  mutable std::mutex snapshot_mutex_;
  Snapshot snapshot_;

  // Last: started after, and stopped before, everything above is gone.
  Worker worker_;
};

}  // namespace yolo::daemon
