// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <utility>
#include <vector>

namespace yolo::daemon {

// One writer, many readers that each go at their own pace: the writer numbers every item and
// keeps the last `keep`; a reader asks for what came after the last number it saw. A reader that
// fell behind skips what is no longer kept instead of slowing the writer (an MJPEG viewer keeps
// only the newest frame; an event-stream client the last few events).
template <class T>
class Broadcast {
 public:
  explicit Broadcast(std::size_t keep) : keep_(keep == 0 ? 1 : keep) {}

  // Adds an item; returns its number (1, 2, ...).
  std::uint64_t push(T item) {
    std::uint64_t number = 0;
    {
      std::lock_guard lock(mutex_);
      number = ++last_;
      items_.emplace_back(number, std::move(item));
      if (items_.size() > keep_) items_.pop_front();
    }
    ready_.notify_all();
    return number;
  }

  // The kept items numbered after `after`, oldest first; waits up to `timeout` for one. Empty on
  // timeout or once closed.
  std::vector<std::pair<std::uint64_t, T>> wait_after(std::uint64_t after,
                                                      std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    ready_.wait_for(lock, timeout, [&] { return closed_ || last_ > after; });
    std::vector<std::pair<std::uint64_t, T>> out;
    if (closed_) return out;
    for (const auto& item : items_) {
      if (item.first > after) out.push_back(item);
    }
    return out;
  }

  // The newest item's number (0 before the first).
  std::uint64_t last() const {
    std::lock_guard lock(mutex_);
    return last_;
  }

  // The newest item and its number, if any.
  std::pair<std::uint64_t, T> newest() const {
    std::lock_guard lock(mutex_);
    if (items_.empty()) return {0, T{}};
    return items_.back();
  }

  // Wakes every reader and makes them return empty: the server is stopping.
  void close() {
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
    }
    ready_.notify_all();
  }

  // Open again after close() (the server restarts on a new address), keeping the numbering.
  void reopen() {
    std::lock_guard lock(mutex_);
    closed_ = false;
  }

 private:
  const std::size_t keep_;
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::pair<std::uint64_t, T>> items_;
  std::uint64_t last_ = 0;
  bool closed_ = false;
};

}  // namespace yolo::daemon
