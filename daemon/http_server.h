// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "daemon/broadcast.h"
#include "daemon/control_requests.h"
#include "daemon/events.h"
#include "daemon/publisher.h"
#include "daemon/worker.h"

namespace httplib {
class Server;
}

namespace yolo::daemon {

// What the HTTP server asks of the rest of the daemon.
struct HttpBackend {
  // The daemon's status as GET /api/status serves it (Service::status()); null before the first.
  std::function<std::shared_ptr<const nlohmann::json>()> status;
  // The Prometheus text of GET /metrics.
  std::function<std::string()> metrics;
  // Runs a reload or a precision switch on the control loop, waiting up to the given time for
  // its answer (ControlRequests::call).
  std::function<std::optional<ControlReply>(ControlRequest, std::chrono::milliseconds)> control;
};

// Bounds of the HTTP server that are not settings.
struct HttpLimits {
  // A request line, header or body not received within this is dropped (slow clients).
  std::chrono::milliseconds read_timeout{3000};
  // A client that takes no bytes for this long is dropped (a viewer that vanished).
  std::chrono::milliseconds write_timeout{2000};
  // Largest request body accepted (the API's JSON is a few bytes).
  std::size_t max_body = 16 * 1024;
  // Workers beyond http.max_viewers, for the page, the API and /metrics, always there ...
  int spare_workers = 4;
  // ... and started while every worker is busy (slow clients), up to this many beyond
  // http.max_viewers.
  int max_workers = 64;
  // How long an unanswered bind is retried after (the port in use by another program).
  std::chrono::milliseconds bind_retry{5000};
  // How long GET /snapshot.jpg waits for a frame when it has none fresh.
  std::chrono::milliseconds snapshot_wait{5000};
  // How long the API waits for the control loop (a reload loads and checks the config).
  std::chrono::milliseconds control_timeout{10000};
};

// The live view (docs/http.md): the page, the annotated MJPEG stream, a snapshot, the status
// API, detections as server-sent events, Prometheus metrics, and the precision switch. Its own
// threads do all the work: a listener, a pool of workers (cpp-httplib 0.11's queue in front of
// it is unbounded, so stream clients are capped below the pool and the API always has a worker;
// it grows while slow clients hold workers), and an encoder that annotates and JPEG-encodes each
// streamed frame once for every viewer, only while someone watches, at most http.max_fps times a
// second. publish() only hands over a pointer, so no client can slow inference.
class HttpServer : public Publisher {
 public:
  HttpServer(Events& events, HttpBackend backend, HttpLimits limits = {});
  ~HttpServer() override;

  std::string_view name() const override { return "http"; }
  // Takes http.*; a changed http.listen moves the server to the new address (clients of the old
  // one are dropped); an empty one turns HTTP off.
  void configure(const config::Config& config) override;
  void start() override;
  void publish(std::shared_ptr<const FrameResult> result) override;
  void stats(const nlohmann::json& status) override;
  bool wants_frame() const override;
  // {"ok", "listen", "port", "viewers", "event_clients", "frames_encoded", "stream_fps",
  //  "requests", "refused", "warning" (the address cannot be bound)}.
  nlohmann::json status() const override;
  bool stop() override;

  // The port it listens on (the one the system chose for port 0); 0 while not listening.
  int port() const { return port_.load(); }

 private:
  struct Settings {
    std::string listen;
    std::string token;
    double max_fps = 5;
    int jpeg_quality = 80;
    int max_viewers = 4;
  };
  class Handlers;

  void listen_loop();
  // Serves on a bound server until stop() or a new address.
  void serve(httplib::Server& server);
  void encode_loop();
  Settings settings() const;
  bool stopped() const;
  // When the newest JPEG was made.
  std::chrono::steady_clock::time_point encoded_at() const;
  // Annotates and encodes one frame; null when encoding failed.
  std::shared_ptr<const std::string> encode(const FrameResult& result, const Settings& s) const;

  Events& events_;
  const HttpBackend backend_;
  const HttpLimits limits_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  Settings settings_;
  // Set by configure() when the listener must move (or stop) and by stop().
  bool rebind_ = false;
  bool stopping_ = false;
  // The newest result not yet taken by the encoder.
  std::shared_ptr<const FrameResult> latest_;
  // The status text drawn on frames ("INT8 yolo11n 2 threads 14.2 fps 52 C").
  std::string overlay_;
  std::string warning_;
  std::string bound_to_;
  std::chrono::steady_clock::time_point encoded_at_{};

  // JPEG frames and server-sent events, each made once and sent to every client.
  Broadcast<std::shared_ptr<const std::string>> jpegs_{1};
  Broadcast<std::shared_ptr<const std::string>> events_out_{64};
  std::atomic<int> viewers_{0};
  std::atomic<int> event_clients_{0};
  std::atomic<int> snapshot_waiters_{0};
  std::atomic<int> port_{0};
  std::atomic<std::uint64_t> frames_encoded_{0};
  std::atomic<std::uint64_t> requests_{0};
  std::atomic<std::uint64_t> refused_{0};
  // Encodes per second over the last few seconds.
  std::atomic<double> stream_fps_{0};

  Worker listener_;
  Worker encoder_;
};

// Whether two secrets are equal, in a time that depends on neither (the bearer token check).
bool same_secret(std::string_view a, std::string_view b);

}  // namespace yolo::daemon
