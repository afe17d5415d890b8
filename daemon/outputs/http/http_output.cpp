// SPDX-License-Identifier: Apache-2.0
// The server's life: its parts, the settings it takes, what it is fed, the encoder, its status.
#include "daemon/outputs/http/http_output.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>

#include "config/credential.h"
#include "text/format.h"

namespace yolo::daemon {

namespace {

// The encoder runs below inference: under load the stream slows, never the detections.
constexpr int kEncoderNice = 10;
// The encoder wakes at least this often, for the stream's rate and to see a stop.
constexpr auto kEncoderTurn = std::chrono::milliseconds(250);

}  // namespace

HttpOutput::HttpOutput(Events& events, HttpBackend backend, std::filesystem::path state_dir,
                       HttpLimits limits)
    : events_(events),
      backend_(std::move(backend)),
      state_dir_(std::move(state_dir)),
      limits_(limits),
      access_(state_dir_.empty() ? std::filesystem::path() : state_dir_ / "http-sessions.json"),
      connections_(limits.request_deadline, limits.busy_request_deadline),
      waiting_(connections_),
      control_(waiting_),
      mjpeg_(waiting_, limits_, backend_.status),
      event_stream_(waiting_, backend_.object_events, state_dir_, limits.stream_write_timeout),
      listener_(events_, limits_, state_dir_, connections_,
                {.serve = [this](const ExchangePtr& ex) { return serve(ex); },
                 .opening =
                     [this] {
                       waiting_.open();
                       mjpeg_.reopen();
                       event_stream_.reopen();
                     },
                 .closing = [this] { waiting_.close(); }}) {}

HttpOutput::~HttpOutput() {
  HttpOutput::stop();
}

std::string HttpOutput::password_for(const config::HttpConfig& http) {
  if (http.auth != config::HttpAuth::kPassword || !http.password.empty() || http.listen.empty()) {
    return http.password;
  }
  try {
    bool created = false;
    std::string password = config::load_or_create_credential(state_dir_, &created);
    if (created) {
      events_.log().warning(
          "http: viewing the camera needs a login; a password was made and kept in " +
          config::credential_file(state_dir_).string() +
          ": print it with `sudo yolo-edge config --show-credential` (or set http.password, "
          "or http.auth: none on a network you trust)");
    } else {
      events_.log().info("http: viewing needs the password in " +
                         config::credential_file(state_dir_).string() +
                         " (sudo yolo-edge config --show-credential prints it)");
    }
    return password;
  } catch (const std::exception& e) {
    // No password can be had: nobody gets in, rather than everybody.
    events_.log().error(std::string("http: ") + e.what() + "; nobody can log in until then");
    return "";
  }
}

void HttpOutput::configure(const config::Config& config) {
  access_.configure(config.http, password_for(config.http));
  event_stream_.configure(config.events);
  {
    std::lock_guard lock(mutex_);
    http_ = config.http;
  }
  listener_.configure(config.http);
}

void HttpOutput::start() {
  listener_.start();
  encoder_.start("http-encode", [this] { encode_loop(); });
  waiting_.start();
  control_.start();
}

void HttpOutput::publish(std::shared_ptr<const FrameResult> result) {
  mjpeg_.arrived(*result);
  active_tracks_ = result->scene ? static_cast<int>(result->tracks.size()) : -1;
  if (result->scene) {
    std::lock_guard lock(mutex_);
    scene_ = result->scene;
  }
  if (event_stream_.clients() == 0 && !result->frame) return;
  {
    std::lock_guard lock(mutex_);
    latest_ = std::move(result);
  }
  wake_.notify_all();
}

bool HttpOutput::wants_frame(const FrameResult&) const {
  return mjpeg_.watched();
}

void HttpOutput::encode_loop() {
  setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kEncoderNice);
  for (;;) {
    std::shared_ptr<const FrameResult> result;
    config::HttpConfig http;
    {
      std::unique_lock lock(mutex_);
      wake_.wait_for(lock, kEncoderTurn, [&] { return encoder_.stopping() || latest_; });
      if (encoder_.stopping()) return;
      result = std::move(latest_);
      latest_.reset();
      http = http_;
    }
    if (result) event_stream_.take(*result);
    mjpeg_.take(result, http);
  }
}

void HttpOutput::stats(const DaemonStatus& status) {
  std::string precision = runtime::precision_name(status.model.precision);
  std::transform(precision.begin(), precision.end(), precision.begin(), ::toupper);
  const int n = status.inference.threads;
  std::string text = precision + " " + status.model.name + " " + std::to_string(n) +
                     (n == 1 ? " thread" : " threads") + " " +
                     text::fixed(status.inference.fps, 1) + " fps";
  if (const auto hottest = status.device ? status.device->max_celsius() : std::nullopt) {
    // Appended apart: `" " + string` here draws GCC 12's false -Wrestrict warning.
    text += " ";
    text += text::fixed(*hottest, 0) + " C";
  }
  mjpeg_.set_overlay(std::move(text));
}

nlohmann::json HttpOutput::status() const {
  const http::Listener::State listener = listener_.state();
  config::HttpConfig http;
  {
    std::lock_guard lock(mutex_);
    http = http_;
  }
  nlohmann::json j = {{"ok", listener.warning.empty()},
                      {"listen", http.listen},
                      {"port", listener.port},
                      {"scheme", listener.scheme},
                      {"auth", http.auth == config::HttpAuth::kNone ? "none" : "password"},
                      {"viewers", mjpeg_.viewers()},
                      {"event_clients", event_stream_.clients()},
                      {"connections", connections_.open()},
                      {"frames_encoded", mjpeg_.frames_encoded()},
                      {"stream_fps", text::rounded(mjpeg_.fps(), 1)},
                      {"requests", listener.requests},
                      {"refused", refused_.load()},
                      {"refused_connections", connections_.refused()},
                      {"requests_cut_off", connections_.cut_off()},
                      {"failed_logins", access_.failed_logins()},
                      {"sessions", access_.sessions()}};
  if (!listener.tls_fingerprint.empty()) j["tls_fingerprint"] = listener.tls_fingerprint;
  if (!listener.warning.empty()) j["warning"] = listener.warning;
  return j;
}

void HttpOutput::metrics(MetricsSink& sink) const {
  const nlohmann::json http = status();
  sink.set_gauge("yolo_edge_http_clients", "Clients of the live view's endless responses.",
                 {{"kind", "stream"}}, http.value("viewers", 0));
  sink.set_gauge("yolo_edge_http_clients", "Clients of the live view's endless responses.",
                 {{"kind", "events"}}, http.value("event_clients", 0));
  sink.set_gauge("yolo_edge_http_connections", "Open connections to the live view.", {},
                 http.value("connections", 0));
  sink.follow_counter("yolo_edge_http_login_failures_total",
                      "Failed logins to the live view (wrong password).", {},
                      http.value("failed_logins", 0));
  sink.follow_counter("yolo_edge_http_refused_connections_total",
                      "Connections refused for http.max_clients or "
                      "http.max_clients_per_address.",
                      {}, http.value("refused_connections", 0));
  sink.follow_counter("yolo_edge_http_requests_cut_off_total",
                      "Requests cut off for not arriving whole in time (slow clients).", {},
                      http.value("requests_cut_off", 0));
}

bool HttpOutput::stop() {
  mjpeg_.close();
  event_stream_.close();
  const auto budget = std::chrono::milliseconds(2500);
  const bool listener = listener_.stop_within(budget);
  const bool encoder = encoder_.stop_within(budget);
  const bool timer = waiting_.stop_within(budget);
  // The control thread may be waiting on the control loop (up to control_timeout): the server
  // stops without waiting for it to answer.
  const bool control = control_.stop_within(budget);
  return listener && encoder && timer && control;
}

}  // namespace yolo::daemon
