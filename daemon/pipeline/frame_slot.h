// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>

#include "vision/capture.h"

namespace yolo::daemon {

// The hand-over between capture and inference: one frame, the newest. A stale frame is worth less
// than no frame, so a live source's new frame replaces one inference has not taken yet (counted
// as dropped). A file read as fast as it decodes is not live: its frames wait for room instead.
// Frames are swapped in and out, never copied: three pixel buffers circulate between the capture
// thread, this slot and the inference thread, and nothing is allocated per frame.
class FrameSlot {
 public:
  // Capture side: swaps the filled `frame` in; `frame` comes back holding a buffer to read the
  // next frame into. With `wait_for_room` it first waits until inference took the previous frame.
  // False once closed (the frame is not delivered).
  bool put(vision::Frame& frame, bool wait_for_room);

  // Inference side: waits up to `timeout` for a new frame and swaps it into `frame` (whose old
  // buffer goes back for reuse). Returns how many frames were replaced unseen since the previous
  // take, or nothing on timeout or once closed.
  std::optional<std::int64_t> take(vision::Frame& frame, std::chrono::milliseconds timeout);

  // Wakes both sides for good (shutdown).
  void close();
  // Frames replaced unseen since the slot was made.
  std::int64_t dropped_total() const;

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  vision::Frame stored_;
  bool full_ = false;
  bool closed_ = false;
  std::int64_t dropped_since_take_ = 0;
  std::int64_t dropped_total_ = 0;
};

}  // namespace yolo::daemon
