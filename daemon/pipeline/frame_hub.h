// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "daemon/pipeline/camera_motion.h"
#include "daemon/pipeline/camera_schedule.h"
#include "daemon/pipeline/tracking_stage.h"
#include "vision/capture.h"

namespace yolo::daemon {

// One camera as the inference thread knows it: its name and its tracking (tracks, zones, lines
// and counts are each camera's own).
class CameraStage {
 public:
  CameraStage(EventLog& log, std::string name) : name_(name), tracking_(log, std::move(name)) {}

  const std::string& name() const { return name_; }
  // Inference thread only: its tracking, and when its last frame was taken (what tells the
  // inference thread that the camera gives none, for TrackingStage::idle).
  TrackingStage& tracking() { return tracking_; }
  std::chrono::steady_clock::time_point last_taken{};
  // Any thread: settings the tracking takes before this camera's next frame.
  void configure(TrackingSettings settings);
  std::optional<TrackingSettings> take_settings();
  // Where its frames are detected: whole, or where something moved.
  CameraMotion& motion() { return motion_; }

 private:
  const std::string name_;
  TrackingStage tracking_;
  CameraMotion motion_;
  std::mutex mutex_;
  std::optional<TrackingSettings> pending_;
};

// Events per second over the last few seconds (frames arrived, detected, skipped).
class RateWindow {
 public:
  void add(std::chrono::steady_clock::time_point now, std::int64_t n = 1);
  double rate(std::chrono::steady_clock::time_point now) const;

 private:
  std::deque<std::pair<std::chrono::steady_clock::time_point, std::int64_t>> events_;
  std::chrono::steady_clock::time_point first_{};
};

// The hand-over between the cameras' capture threads and the one inference thread: one frame
// per camera, the newest (a stale frame is worth less than none, so a live source's new frame
// replaces one not taken yet; a file read as fast as it decodes waits for room instead). The
// inference thread takes the frame of the camera whose turn it is (CameraSchedule), so every
// camera gets its detect fps, or counts what it skipped, and none takes another's turn. Frames
// are swapped in and out, never copied: three buffers per camera circulate between its capture
// thread, its slot and the inference thread.
class FrameHub {
 public:
  using Clock = std::chrono::steady_clock;

  struct Taken {
    std::shared_ptr<CameraStage> camera;
    // Turns (or at every frame, frames) the camera skipped since it was last served.
    std::int64_t skipped = 0;
  };
  struct Figures {
    double camera_fps = 0;
    double detection_fps = 0;
    double skipped_fps = 0;
    std::int64_t detected = 0;
    std::int64_t skipped = 0;
    // Frames replaced before the inference thread took them, wanted or not.
    std::int64_t replaced = 0;
  };

  // A camera served from now on, at most `detect_fps` times a second (0: every frame); returns
  // the id its capture puts frames with.
  int add(std::shared_ptr<CameraStage> camera, double detect_fps);
  // Its slot closes (put() returns false) and its frame is dropped.
  void remove(int id);
  void set_detect_fps(int id, double detect_fps);

  // Capture side: swaps the filled `frame` in; `frame` comes back holding a buffer to read the
  // next frame into. With `wait_for_room` it first waits until the previous frame was taken.
  // False once the camera was removed or the hub closed (the frame is not delivered).
  bool put(int id, vision::Frame& frame, bool wait_for_room);

  // Inference side: waits up to `timeout` for a camera whose turn has come and swaps its frame
  // into `frame` (whose old buffer goes back for reuse); nothing on timeout or once closed.
  std::optional<Taken> take(vision::Frame& frame, std::chrono::milliseconds timeout);

  // Wakes every side for good (shutdown).
  void close();
  Figures figures(int id) const;
  std::vector<std::shared_ptr<CameraStage>> cameras() const;

 private:
  struct Slot {
    std::shared_ptr<CameraStage> camera;
    vision::Frame stored;
    bool full = false;
    bool closed = false;
    RateWindow arrived;
    RateWindow detected;
    RateWindow skipped;
    Figures totals;
  };

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::map<int, Slot> slots_;
  CameraSchedule schedule_;
  int next_id_ = 0;
  bool closed_ = false;
};

}  // namespace yolo::daemon
