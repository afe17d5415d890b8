// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "config/config.h"
#include "daemon/base/broadcast.h"
#include "daemon/core/daemon_status.h"
#include "daemon/core/frame_result.h"
#include "daemon/outputs/http/http_limits.h"
#include "daemon/outputs/http/http_waiting.h"

namespace yolo::daemon::http {

// One camera's GET /cameras/NAME/stream.mjpg and /snapshot.jpg (the first camera's also at
// /stream.mjpg and /snapshot.jpg): annotated frames, each annotated and JPEG-encoded once (on the
// encoder thread) for every viewer, only while someone watches or waits for a snapshot, at most
// http.max_fps a second.
class MjpegStream {
 public:
  // `status`: the daemon's status, for why a snapshot of `camera` has no frame.
  MjpegStream(std::string camera, WaitingExchanges& waiting, const HttpLimits& limits,
              std::function<std::shared_ptr<const DaemonStatus>()> status);

  // A result came (the inference thread's call): the pace of frames, for a snapshot's wait.
  void arrived(const FrameResult& result);
  // The status text drawn on frames ("INT8 yolo11n 2 threads 14.2 fps 52 C").
  void set_overlay(std::string text);
  // A turn of the encoder thread: the stream's rate, and `result`'s frame (if any) encoded when
  // someone watches and a frame is due under http.max_fps.
  void take(const std::shared_ptr<const FrameResult>& result, const config::HttpConfig& http);

  // Someone watches the stream or waits for a snapshot: results should carry their pixels.
  bool watched() const { return viewers_.load() > 0 || snapshot_waiters_.load() > 0; }
  int viewers() const { return viewers_.load(); }
  const std::string& camera() const { return camera_; }
  std::uint64_t frames_encoded() const { return frames_encoded_.load(); }
  // Encodes per second over the last few seconds.
  double fps() const { return fps_.load(); }

  // Sends `ex` the stream (its place under http.max_viewers is free).
  int serve(const std::shared_ptr<Exchange>& ex);
  // The newest frame, or the next one within HttpLimits::snapshot_wait; 503 saying why not.
  int serve_snapshot(const std::shared_ptr<Exchange>& ex);
  // The server starts serving / stops.
  void reopen() { jpegs_.reopen(); }
  void close() { jpegs_.close(); }

 private:
  // The stream's body, a piece at a time; 0 after suspending until there is a new frame.
  long body(const std::shared_ptr<Exchange>& ex, char* buffer, std::size_t max);
  // Annotates and encodes one frame; null when encoding failed.
  std::shared_ptr<const std::string> encode(const FrameResult& result, int quality) const;
  Clock::time_point encoded_at() const;

  const std::string camera_;
  WaitingExchanges& waiting_;
  const HttpLimits limits_;
  const std::function<std::shared_ptr<const DaemonStatus>()> status_;

  mutable std::mutex mutex_;
  std::string overlay_;
  // When the newest JPEG was made.
  Clock::time_point encoded_at_{};

  Broadcast<std::shared_ptr<const std::string>> jpegs_{1};
  std::atomic<int> viewers_{0};
  std::atomic<int> snapshot_waiters_{0};
  // The newest result's frame number and when results come (for the snapshot's wait), and the
  // frame number of the newest JPEG.
  std::atomic<std::int64_t> latest_index_{-1};
  std::atomic<std::int64_t> encoded_index_{-2};
  std::atomic<std::int64_t> last_result_ns_{0};
  std::atomic<double> result_interval_ms_{0};
  std::atomic<std::uint64_t> frames_encoded_{0};
  std::atomic<double> fps_{0};

  // The encoder thread's own: when the next frame is due, and when the last few were encoded.
  Clock::time_point due_{};
  std::deque<Clock::time_point> recent_;
};

}  // namespace yolo::daemon::http
