// SPDX-License-Identifier: Apache-2.0
#include "daemon/pipeline/frame_slot.h"

#include <utility>

namespace yolo::daemon {

bool FrameSlot::put(vision::Frame& frame, bool wait_for_room) {
  {
    std::unique_lock lock(mutex_);
    if (wait_for_room) changed_.wait(lock, [&] { return !full_ || closed_; });
    if (closed_) return false;
    if (full_) {
      ++dropped_since_take_;
      ++dropped_total_;
    }
    std::swap(frame, stored_);
    full_ = true;
  }
  changed_.notify_all();
  return true;
}

std::optional<std::int64_t> FrameSlot::take(vision::Frame& frame,
                                            std::chrono::milliseconds timeout) {
  std::int64_t dropped = 0;
  {
    std::unique_lock lock(mutex_);
    if (!changed_.wait_for(lock, timeout, [&] { return full_ || closed_; }) || closed_) {
      return std::nullopt;
    }
    std::swap(frame, stored_);
    full_ = false;
    dropped = std::exchange(dropped_since_take_, 0);
  }
  changed_.notify_all();
  return dropped;
}

void FrameSlot::close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  changed_.notify_all();
}

std::int64_t FrameSlot::dropped_total() const {
  std::lock_guard lock(mutex_);
  return dropped_total_;
}

}  // namespace yolo::daemon
