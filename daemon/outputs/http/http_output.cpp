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
      event_stream_(waiting_, backend_.object_events, state_dir_, limits.stream_write_timeout),
      listener_(events_, limits_, state_dir_, connections_,
                {.serve = [this](const ExchangePtr& ex) { return serve(ex); },
                 .opening =
                     [this] {
                       waiting_.open();
                       for (http::MjpegStream* s : streams()) s->reopen();
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

http::MjpegStream& HttpOutput::stream(const std::string& camera) {
  std::lock_guard lock(streams_mutex_);
  auto& s = streams_[camera];
  if (!s) {
    s = std::make_unique<http::MjpegStream>(camera, waiting_, limits_, backend_.status);
    if (listener_.port() > 0) s->reopen();
  }
  return *s;
}

std::vector<http::MjpegStream*> HttpOutput::streams() const {
  std::lock_guard lock(streams_mutex_);
  std::vector<http::MjpegStream*> out;
  for (const auto& [camera, s] : streams_) out.push_back(s.get());
  return out;
}

http::MjpegStream* HttpOutput::stream_of(const http::Exchange& ex, int* answer) {
  const auto status = backend_.status ? backend_.status() : nullptr;
  // The status's cameras (a camera a reload removed is gone, though its idle stream stays);
  // before any status, those whose results came.
  std::vector<std::string> cameras;
  if (status) {
    for (const CameraStatus& c : status->cameras) cameras.push_back(c.name);
  } else {
    for (const http::MjpegStream* s : streams()) cameras.push_back(s->camera());
  }
  if (ex.camera.empty()) {
    return &stream(cameras.empty() ? std::string(config::kMainCamera) : cameras.front());
  }
  if (std::find(cameras.begin(), cameras.end(), ex.camera) != cameras.end()) {
    return &stream(ex.camera);
  }
  std::string names;
  for (const std::string& c : cameras) names += (names.empty() ? "" : ", ") + c;
  *answer = http::queue_error(ex.connection, 404,
                              "there is no camera '" + ex.camera + "'; the cameras are " +
                                  (names.empty() ? std::string("not known yet") : names));
  return nullptr;
}

void HttpOutput::publish(std::shared_ptr<const FrameResult> result) {
  http::MjpegStream& mjpeg = stream(result->camera);
  mjpeg.arrived(*result);
  active_tracks_ = result->scene ? static_cast<int>(result->tracks.size()) : -1;
  if (result->scene) {
    std::lock_guard lock(mutex_);
    scenes_[result->camera] = result->scene;
  }
  if (event_stream_.clients() == 0 && !result->frame) return;
  {
    std::lock_guard lock(mutex_);
    latest_[result->camera] = std::move(result);
  }
  wake_.notify_all();
}

bool HttpOutput::wants_frame(const FrameResult& result) const {
  std::lock_guard lock(streams_mutex_);
  const auto it = streams_.find(result.camera);
  return it != streams_.end() && it->second->watched();
}

void HttpOutput::encode_loop() {
  setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kEncoderNice);
  for (;;) {
    std::map<std::string, std::shared_ptr<const FrameResult>, std::less<>> results;
    config::HttpConfig http;
    {
      std::unique_lock lock(mutex_);
      wake_.wait_for(lock, kEncoderTurn, [&] { return encoder_.stopping() || !latest_.empty(); });
      if (encoder_.stopping()) return;
      results.swap(latest_);
      http = http_;
    }
    for (const auto& [camera, result] : results) {
      event_stream_.take(*result);
      stream(camera).take(result, http);
    }
    // Streams without a new result still count their rate down.
    for (http::MjpegStream* s : streams()) {
      if (!results.contains(s->camera())) s->take(nullptr, http);
    }
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
  for (http::MjpegStream* s : streams()) s->set_overlay(text);
}

nlohmann::json HttpOutput::status() const {
  const http::Listener::State listener = listener_.state();
  config::HttpConfig http;
  {
    std::lock_guard lock(mutex_);
    http = http_;
  }
  int viewers = 0;
  std::uint64_t frames_encoded = 0;
  double stream_fps = 0;
  for (const http::MjpegStream* s : streams()) {
    viewers += s->viewers();
    frames_encoded += s->frames_encoded();
    stream_fps += s->fps();
  }
  nlohmann::json j = {{"ok", listener.warning.empty()},
                      {"listen", http.listen},
                      {"port", listener.port},
                      {"scheme", listener.scheme},
                      {"auth", http.auth == config::HttpAuth::kNone ? "none" : "password"},
                      {"viewers", viewers},
                      {"event_clients", event_stream_.clients()},
                      {"connections", connections_.open()},
                      {"frames_encoded", frames_encoded},
                      {"stream_fps", text::rounded(stream_fps, 1)},
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
  for (http::MjpegStream* s : streams()) s->close();
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
