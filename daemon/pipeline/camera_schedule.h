// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

namespace yolo::daemon {

// Which camera the one inference thread serves next, and what each camera missed; the clock is
// the caller's, so it is tested with made-up times. Each camera has turns, one every
// 1 / detect_fps (or every frame, at 0): of the cameras with a frame waiting whose turn has come,
// the one whose turn came first is served. A camera served late moves its next turn on by whole
// periods from its last one, counting the turns it missed as skipped, so it cannot take another
// camera's turn to catch up (Frigate's skipped fps). A camera at every frame skips the frames
// replaced while they waited. Not thread-safe (FrameHub holds it under its lock).
class CameraSchedule {
 public:
  using Clock = std::chrono::steady_clock;

  // A camera by the caller's id (unique), detected at most `detect_fps` times a second (0: every
  // frame); its first turn is `now`.
  void add(int id, double detect_fps, Clock::time_point now);
  void remove(int id);
  // A new detect fps from its next turn on.
  void set_detect_fps(int id, double detect_fps, Clock::time_point now);

  // A frame of `id` arrived at `now`, replacing the one waiting, if any.
  void arrived(int id, Clock::time_point now);
  // The camera to serve at `now`, or none; `wake_at` (when given) is set to the earliest time a
  // waiting frame's turn comes, when none has come yet.
  std::optional<int> next(Clock::time_point now,
                          std::optional<Clock::time_point>* wake_at = nullptr) const;
  // `id`'s waiting frame is taken at `now`; returns the turns (or, at every frame, the frames)
  // it skipped since it was last served.
  std::int64_t served(int id, Clock::time_point now);

 private:
  struct Entry {
    int id = 0;
    // Zero: every frame.
    Clock::duration period{};
    Clock::time_point due;
    bool waiting = false;
    // When the oldest frame since the last serve arrived: turns before it missed nothing (the
    // camera gave no frame).
    Clock::time_point waiting_since;
    // Frames replaced unseen since the last serve.
    std::int64_t replaced = 0;
  };
  Entry* find(int id);

  std::vector<Entry> entries_;
};

}  // namespace yolo::daemon
