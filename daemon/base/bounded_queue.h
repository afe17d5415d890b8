// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>

namespace yolo::daemon {

// A queue of at most `capacity` items between threads. push() never blocks: when the queue is
// full the oldest item is dropped and counted, so a slow consumer loses old work instead of
// stalling its producer (the inference thread). pop() waits up to a timeout.
template <class T>
class BoundedQueue {
 public:
  explicit BoundedQueue(std::size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

  // False once close() was called (the item is not queued).
  bool push(T item) {
    {
      std::lock_guard lock(mutex_);
      if (closed_) return false;
      if (items_.size() >= capacity_) {
        items_.pop_front();
        ++dropped_;
      }
      items_.push_back(std::move(item));
    }
    ready_.notify_one();
    return true;
  }

  // The oldest item, or nothing when `timeout` passed (or the queue is closed and empty).
  template <class Rep, class Period>
  std::optional<T> pop(std::chrono::duration<Rep, Period> timeout) {
    std::unique_lock lock(mutex_);
    ready_.wait_for(lock, timeout, [&] { return !items_.empty() || closed_; });
    if (items_.empty()) return std::nullopt;
    T item = std::move(items_.front());
    items_.pop_front();
    return item;
  }

  // A new bound (at least 1); the oldest items beyond it are dropped and counted.
  void set_capacity(std::size_t capacity) {
    std::lock_guard lock(mutex_);
    capacity_ = capacity == 0 ? 1 : capacity;
    while (items_.size() > capacity_) {
      items_.pop_front();
      ++dropped_;
    }
  }

  // Wakes every waiting pop(); later pushes are refused, items already queued can still be
  // popped.
  void close() {
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
    }
    ready_.notify_all();
  }

  bool closed() const {
    std::lock_guard lock(mutex_);
    return closed_;
  }
  std::size_t size() const {
    std::lock_guard lock(mutex_);
    return items_.size();
  }
  // Items dropped because the queue was full, since it was made.
  std::int64_t dropped() const {
    std::lock_guard lock(mutex_);
    return dropped_;
  }

 private:
  std::size_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<T> items_;
  std::int64_t dropped_ = 0;
  bool closed_ = false;
};

}  // namespace yolo::daemon
