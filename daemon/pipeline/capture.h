// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "config/config.h"
#include "daemon/base/worker.h"
#include "daemon/core/daemon_status.h"
#include "daemon/core/events.h"
#include "daemon/pipeline/device_watch.h"
#include "daemon/pipeline/frame_hub.h"
#include "os/unique_fd.h"
#include "vision/capture.h"

namespace yolo::daemon {

// The capture thread: opens the source, reads frames into the slot (the newest wins), and when
// the source fails or stops (a camera unplugged, a stream dropped, a file that ended) reopens it
// after source.reconnect_s, doubling the wait after each failed attempt up to a cap. A camera
// device is also watched: it is reopened as soon as it appears again, whatever the wait. It never
// gives up and never spins; the status says what it is doing. One per camera: it holds the
// camera's place in the hub from construction to stop().
class Capture {
 public:
  using State = SourceState;

  // `camera` is served at most `detect_fps` times a second; with `named`, what the capture says
  // starts with the camera's name (a daemon of several cameras). Every event carries it.
  Capture(Events& events, FrameHub& hub, std::shared_ptr<CameraStage> camera, double detect_fps,
          bool named);
  ~Capture();

  void start(const config::SourceConfig& source);
  // A reload changed the source section: reopen with the new settings now.
  void reconfigure(const config::SourceConfig& source);
  void set_detect_fps(double detect_fps);
  const std::string& camera() const { return camera_; }
  // How inference serves the camera.
  FrameHub::Figures figures() const;
  // Stops the thread within `limit`; false when a source read did not return in time.
  bool stop(std::chrono::milliseconds limit);

  State state() const;
  SourceStatus status() const;
  // When the thread last showed it is alive (a frame read, an open attempt, a wait): the watchdog
  // is fed only while this is recent.
  std::chrono::steady_clock::time_point heartbeat() const;

  // The longest wait between two attempts: reconnect_s doubles up to this, or reconnect_s when
  // that is longer.
  static constexpr double kMaxBackoffSeconds = 60;

 private:
  void run();
  // Waits `seconds`, or until stopped or reconfigured, or until `device` (when given) appears
  // or changes; false when it should stop.
  bool wait_before_retry(double seconds, std::uint64_t generation, DeviceWatch* device);
  // Wakes wait_before_retry.
  void wake();
  void set_state(State state);
  void beat();
  void emit(config::LogLevel level, fieldlog::EventKind kind, const std::string& message,
            nlohmann::json fields) const;

  Events& events_;
  FrameHub& hub_;
  const std::string camera_;
  const int id_;
  const bool named_;
  Worker worker_;

  mutable std::mutex mutex_;
  // Written by reconfigure() and stop() to end a wait (an eventfd).
  os::UniqueFd wake_fd_;
  config::SourceConfig config_;
  // Bumped by reconfigure(): the thread reopens when it sees a new value.
  std::uint64_t generation_ = 0;
  bool stopping_ = false;
  State state_ = State::kStopped;
  std::string description_;
  std::string last_error_;
  std::int64_t frames_ = 0;
  std::int64_t reopened_ = 0;
  // The next attempt's time while kLost waits for it; unset while an attempt runs.
  std::optional<std::chrono::steady_clock::time_point> retry_at_;

  std::atomic<std::int64_t> heartbeat_ns_{0};
};

}  // namespace yolo::daemon
