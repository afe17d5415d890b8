// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "daemon/base/broadcast.h"
#include "daemon/base/worker.h"
#include "daemon/core/control_requests.h"
#include "daemon/core/event_log.h"
#include "daemon/core/events.h"
#include "daemon/core/publisher.h"
#include "daemon/outputs/http/http_access.h"
#include "daemon/outputs/http/http_connections.h"

struct MHD_Connection;

namespace yolo::daemon {

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

// Bounds of the HTTP server that are not settings.
struct HttpLimits {
  // A connection that sends nothing and takes nothing for this long is closed (a slow client,
  // a viewer that stopped reading, an idle kept-alive connection). Whole seconds.
  std::chrono::seconds idle_timeout{3};
  // A request (TLS handshake, request line, headers and body) not received whole within this
  // of the connection's start (or the end of its previous request) is cut off, however slowly
  // it trickles in ...
  std::chrono::milliseconds request_deadline{10000};
  // ... or within this while more than three quarters of http.max_clients are in use.
  std::chrono::milliseconds busy_request_deadline{2000};
  // A stream client that takes nothing for this long is dropped. Whole seconds.
  std::chrono::seconds stream_write_timeout{2};
  // An MJPEG viewer with no new frame for this long gets the last one again, which finds
  // viewers that left while the camera was lost (nothing else is sent to them then).
  std::chrono::milliseconds viewer_check{5000};
  // Largest request body accepted (the API's JSON and the login form are a few bytes).
  std::size_t max_body = 16 * 1024;
  // Memory for one connection's request line and headers: a request line over about 8 KiB gets
  // 414, larger headers 431. It is most of what an idle connection costs (about 8 KiB each).
  std::size_t connection_memory = 8 * 1024;
  // How long an unanswered bind is retried after (the port in use by another program).
  std::chrono::milliseconds bind_retry{5000};
  // How long GET /snapshot.jpg waits for a frame when it has none fresh.
  std::chrono::milliseconds snapshot_wait{5000};
  // How long the API waits for the control loop (a reload loads and checks the config).
  std::chrono::milliseconds control_timeout{10000};
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
class HttpServer : public Publisher {
 public:
  // `state_dir`: where the password made at first start, the sessions and a self-signed
  // certificate are kept, and the events' snapshots and clips are found (event_media()).
  HttpServer(Events& events, HttpBackend backend, std::filesystem::path state_dir,
             HttpLimits limits = {});
  ~HttpServer() override;

  std::string_view name() const override { return "http"; }
  // Takes http.*; a changed address, TLS setting or client limit restarts the server (clients
  // are dropped); a changed password ends every session; an empty http.listen turns HTTP off.
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
  int port() const { return port_.load(); }

  class Exchange;
  class Daemon;

 private:
  // Someone is watching the stream or waiting for a snapshot.
  bool watched() const;
  // libmicrohttpd's C callbacks, which call into the members below.
  friend struct HttpCallbacks;

  struct Settings {
    std::string listen;
    config::HttpAuth auth{};
    std::string password;
    std::string token;
    std::vector<config::Network> metrics_allow;
    bool tls = false;
    std::filesystem::path tls_cert;
    std::filesystem::path tls_key;
    double max_fps = 5;
    int jpeg_quality = 80;
    int max_viewers = 4;
    int max_clients = 256;
    int max_clients_per_address = 32;
    // Which events get a snapshot, a crop and a clip (events.*): the event stream links them
    // before they are written.
    std::vector<tracking::ObjectEventKind> snapshots;
    bool crop = false;
    std::vector<tracking::ObjectEventKind> clips;

    // Whether the server must be started again for the change from `other`.
    bool needs_restart(const Settings& other) const;
  };
  // What wakes a suspended exchange, besides stop().
  enum Wake : unsigned { kOnFrame = 1, kOnEvent = 2, kOnJob = 4 };

  // The listener thread: binds http.listen, runs a Daemon until it must move or stop.
  void listen_loop();
  void encode_loop();
  void timer_loop();
  void control_loop();
  Settings settings() const;
  bool stopped() const;
  // When the newest JPEG was made.
  std::chrono::steady_clock::time_point encoded_at() const;
  // Annotates and encodes one frame; null when encoding failed.
  std::shared_ptr<const std::string> encode(const FrameResult& result, const Settings& s) const;

  // The access handler: one call per request once its headers are in, more while a body comes
  // and after each resume.
  int answer(MHD_Connection* connection, const char* url, const char* method,
             const char* upload_data, std::size_t* upload_data_size, void** request);
  // Serves a request received whole (again after a resume).
  int serve(const std::shared_ptr<Exchange>& ex);
  int serve_login(const std::shared_ptr<Exchange>& ex);
  int serve_stream(const std::shared_ptr<Exchange>& ex, bool events);
  int serve_snapshot(const std::shared_ptr<Exchange>& ex);
  int serve_control(const std::shared_ptr<Exchange>& ex);
  // GET /api/events, /api/events/ID/(snapshot.jpg|crop.jpg|clip.avi), /api/counts.
  int serve_events(const std::shared_ptr<Exchange>& ex);
  int serve_media(const std::shared_ptr<Exchange>& ex, std::int64_t id);
  int serve_counts(const std::shared_ptr<Exchange>& ex);
  // POST /api/counts/reset: checks the body and the place; the refusal queued, or nullopt when
  // the reset may go to the control thread.
  std::optional<int> check_reset(const std::shared_ptr<Exchange>& ex);
  // The next piece of an event stream's text: object events it has not had, new counts, frames.
  void next_events(const std::shared_ptr<Exchange>& ex);
  // MJPEG and event-stream bodies, a piece at a time; 0 after suspending until there is more.
  long stream_body(const std::shared_ptr<Exchange>& ex, char* buffer, std::size_t max);
  long event_body(const std::shared_ptr<Exchange>& ex, char* buffer, std::size_t max);
  // Takes the exchange off the loop until one of `wake` happens or `until`; false when the
  // server is stopping (then answer at once).
  bool suspend(const std::shared_ptr<Exchange>& ex, unsigned wake,
               std::chrono::steady_clock::time_point until);
  // Puts the suspended exchanges that `wake` (or their time) has come for back on the loop.
  void resume(unsigned wake);
  void resume(const std::shared_ptr<Exchange>& ex);
  void resume_all();

  Events& events_;
  const HttpBackend backend_;
  const std::filesystem::path state_dir_;
  const HttpLimits limits_;
  HttpAccess access_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  Settings settings_;
  // Set by configure() when the server must start again (or stop) and by stop().
  bool rebind_ = false;
  bool stopping_ = false;
  // The newest result not yet taken by the encoder.
  std::shared_ptr<const FrameResult> latest_;
  // The newest zones and lines (GET /api/counts); null with tracking off.
  std::shared_ptr<const SceneState> scene_;
  // The event stream's counts message for the newest scene that changed them, and that scene.
  std::shared_ptr<const std::string> counts_message_;
  std::shared_ptr<const SceneState> counts_scene_;
  std::uint64_t counts_version_ = 0;
  // The status text drawn on frames ("INT8 yolo11n 2 threads 14.2 fps 52 C").
  std::string overlay_;
  std::string warning_;
  std::string bound_to_;
  std::string scheme_ = "http";
  std::string fingerprint_;
  std::chrono::steady_clock::time_point encoded_at_{};

  // Suspended exchanges and what wakes each; the timer thread wakes on the nearest time.
  std::mutex waits_mutex_;
  std::condition_variable timers_;
  std::vector<std::shared_ptr<Exchange>> waiting_;
  bool closing_ = false;

  // Control requests, one at a time on the control thread.
  std::mutex jobs_mutex_;
  std::condition_variable jobs_ready_;
  std::vector<std::shared_ptr<Exchange>> jobs_;

  // Open connections (for their deadline and the limits).
  HttpConnections connections_;
  // The process's limit of open files (after start() raised it to the hard limit).
  long open_files_ = 1024;

  // JPEG frames and server-sent events, each made once and sent to every client.
  Broadcast<std::shared_ptr<const std::string>> jpegs_{1};
  Broadcast<std::shared_ptr<const std::string>> events_out_{64};
  std::atomic<int> viewers_{0};
  std::atomic<int> event_clients_{0};
  std::atomic<int> snapshot_waiters_{0};
  std::atomic<int> port_{0};
  // Tracks alive at the newest result; -1 with tracking off.
  std::atomic<int> active_tracks_{-1};
  // The newest result's frame number and when results come (for the snapshot's wait), and the
  // frame number of the newest JPEG.
  std::atomic<std::int64_t> latest_index_{-1};
  std::atomic<std::int64_t> encoded_index_{-2};
  std::atomic<std::int64_t> last_result_ns_{0};
  std::atomic<double> result_interval_ms_{0};
  std::atomic<std::uint64_t> frames_encoded_{0};
  std::atomic<std::uint64_t> requests_{0};
  std::atomic<std::uint64_t> refused_{0};
  // Encodes per second over the last few seconds.
  std::atomic<double> stream_fps_{0};

  Worker listener_;
  Worker encoder_;
  Worker timer_;
  Worker controller_;
};

}  // namespace yolo::daemon
