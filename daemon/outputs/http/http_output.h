// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "daemon/core/control_requests.h"
#include "daemon/core/event_log.h"
#include "daemon/core/event_media.h"
#include "daemon/core/events.h"
#include "daemon/core/publisher.h"
#include "daemon/outputs/http/http_access.h"
#include "daemon/outputs/http/http_connections.h"
#include "daemon/outputs/http/http_control.h"
#include "daemon/outputs/http/http_event_stream.h"
#include "daemon/outputs/http/http_limits.h"
#include "daemon/outputs/http/http_listener.h"
#include "daemon/outputs/http/http_loop_thread.h"
#include "daemon/outputs/http/http_mjpeg.h"
#include "daemon/outputs/http/http_waiting.h"

namespace yolo::daemon {

namespace http {
struct Route;
std::span<const Route> routes();
}  // namespace http

// What the HTTP server asks of the rest of the daemon.
struct HttpBackend {
  // The daemon's status (Service::status()); null before the first.
  std::function<std::shared_ptr<const DaemonStatus>()> status;
  // The Prometheus text of GET /metrics.
  std::function<std::string()> metrics;
  // Runs a reload or a precision switch on the control loop, waiting up to the given time for
  // its answer (ControlRequests::call). Called on the server's control thread, never on the
  // thread that serves connections.
  std::function<std::optional<ControlReply>(ControlRequest, std::chrono::milliseconds)> control;
  // The tracked-object events kept (GET /api/events); null: none.
  const EventLog* object_events = nullptr;
  // Starts a zone's or line's counts again (POST /api/counts/reset); false when the camera has no
  // place of that name.
  std::function<bool(const std::string& camera, const std::string& place)> reset_counts{};
};

// The live view (docs/live-view.md): the page, the annotated MJPEG stream, a snapshot, the status
// API, detections and tracked-object events as server-sent events, the events with their
// snapshots and clips, the zones' and lines' counts, Prometheus metrics, the precision switch, and
// the login in front of them (HttpAccess). Served by libmicrohttpd on one event loop (epoll): a
// connection costs a socket and a few KiB, never a thread, whether it streams, waits for a snapshot
// or trickles its headers in. Every connection has a deadline for its request and an idle timeout,
// their number is bounded in all and per address, and answers that wait (a snapshot, a control
// request, a delayed login, a stream between frames) suspend their connection instead of
// holding the loop. Its threads are fixed in number whatever the clients: the loop, an encoder
// that annotates and JPEG-encodes each streamed frame once for every viewer (only while someone
// watches, at most http.max_fps a second, below inference's priority), a timer thread (waits
// that end, request deadlines), a control thread (API calls into the control loop), and the
// listener that (re)binds. publish() only hands over a pointer, so no client can slow inference.
// The routes and who may ask for each are one table (http_routes.cpp); their answers are this
// class's serve_* members.
class HttpOutput : public Publisher {
 public:
  // `state_dir`: where the password made at first start, the sessions and a self-signed
  // certificate are kept, and the events' snapshots and clips are found (event_media()).
  HttpOutput(Events& events, HttpBackend backend, std::filesystem::path state_dir,
             HttpLimits limits = {});
  ~HttpOutput() override;

  std::string_view name() const override { return "http"; }
  // Takes http.* and events.*; a changed address, TLS setting or client limit restarts the
  // server (clients are dropped); a changed password ends every session; an empty http.listen
  // turns HTTP off.
  void configure(const config::Config& config) override;
  void start() override;
  void publish(std::shared_ptr<const FrameResult> result) override;
  void stats(const DaemonStatus& status) override;
  bool wants_frame(const FrameResult& result) const override;
  // {"ok", "listen", "port", "scheme", "auth", "viewers", "event_clients", "connections",
  //  "frames_encoded", "stream_fps", "requests", "refused", "refused_connections",
  //  "requests_cut_off", "failed_logins", "sessions", "tls_fingerprint", "warning"}.
  nlohmann::json status() const override;
  // Clients and connections (gauges), failed logins, refused connections and cut-off requests.
  void metrics(MetricsSink& sink) const override;
  bool stop() override;

  // The port it listens on (the one the system chose for port 0); 0 while not listening.
  int port() const { return listener_.port(); }

 private:
  using ExchangePtr = std::shared_ptr<http::Exchange>;
  // The route table names the serve_* members.
  friend std::span<const http::Route> http::routes();

  // The encoder thread: each result's event-stream message and JPEG, made once for every client.
  void encode_loop();
  // `camera`'s stream, made when there is none yet.
  http::MjpegStream& stream(const std::string& camera);
  // The stream a request asks for: its {camera}'s, or the first camera's at /stream.mjpg and
  // /snapshot.jpg; null (with the 404 queued in `answer`) for a camera there is not.
  http::MjpegStream* stream_of(const http::Exchange& ex, int* answer);
  std::vector<http::MjpegStream*> streams() const;
  // The password in force: http.password, or the one made at first start when that is empty
  // and viewing needs one ("" when none can be had).
  std::string password_for(const config::HttpConfig& http);

  // A request received whole (again after a resume): its route's answer, or 404, 405, or the
  // refusal of the access its route needs.
  int serve(const ExchangePtr& ex);
  // The refusal of a request without the access its route needs, queued; nullopt when it may go
  // on.
  std::optional<int> refuse(const http::Exchange& ex) const;
  // A stream needs one of the http.max_viewers places: 503 when none is free.
  std::optional<int> refuse_stream(const http::Exchange& ex);
  // Hands `job` to the control thread, and answers with what it makes.
  int post_job(const ExchangePtr& ex, std::function<http::Answer()> job);
  // A control request's answer once its job has run (503 when the server stops first).
  int answer_job(const ExchangePtr& ex);

  // The answers, one per route (http_routes.cpp, http_api.cpp).
  int serve_page(const ExchangePtr& ex);
  int serve_login(const ExchangePtr& ex);
  int serve_logout(const ExchangePtr& ex);
  int serve_metrics(const ExchangePtr& ex);
  int serve_status(const ExchangePtr& ex);
  int serve_stream(const ExchangePtr& ex);
  int serve_snapshot(const ExchangePtr& ex);
  int serve_detections(const ExchangePtr& ex);
  int serve_events(const ExchangePtr& ex);
  int serve_event_snapshot(const ExchangePtr& ex);
  int serve_event_crop(const ExchangePtr& ex);
  int serve_event_clip(const ExchangePtr& ex);
  int serve_counts(const ExchangePtr& ex);
  int serve_counts_reset(const ExchangePtr& ex);
  int serve_precision(const ExchangePtr& ex);
  int serve_reload(const ExchangePtr& ex);
  // An event's file: `file` of its EventMedia, of `type`, named `what` in a 404.
  int serve_event_file(const ExchangePtr& ex, std::filesystem::path EventMedia::*file,
                       const char* type, const char* what);
  // POST /api/precision and /api/reload: `request` run on the control loop.
  int serve_control(const ExchangePtr& ex, ControlRequest request);

  Events& events_;
  const HttpBackend backend_;
  const std::filesystem::path state_dir_;
  const HttpLimits limits_;
  HttpAccess access_;
  HttpConnections connections_;
  http::WaitingExchanges waiting_;
  http::ControlJobs control_;
  http::EventStream event_stream_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  config::HttpConfig http_;
  // Each camera's newest result not yet taken by the encoder.
  std::map<std::string, std::shared_ptr<const FrameResult>, std::less<>> latest_;
  // Each camera's newest zones and lines (GET /api/counts); none with tracking off.
  std::map<std::string, std::shared_ptr<const SceneState>, std::less<>> scenes_;
  // Each camera's stream, made at its first result or request. Never removed (a camera a reload
  // removed only goes idle), so a viewer's suspended connection never outlives its stream.
  mutable std::mutex streams_mutex_;
  std::map<std::string, std::unique_ptr<http::MjpegStream>, std::less<>> streams_;
  // Tracks alive at the newest result; -1 with tracking off.
  std::atomic<int> active_tracks_{-1};
  // Streams refused for http.max_viewers.
  std::atomic<std::uint64_t> refused_{0};

  http::LoopThread encoder_{mutex_, wake_};
  // Last: its thread serves requests with all of the above.
  http::Listener listener_;
};

}  // namespace yolo::daemon
