// SPDX-License-Identifier: Apache-2.0
// The server's life: settings, the listener that (re)binds and runs libmicrohttpd, its status.
#include "daemon/outputs/http/http_server.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "config/credential.h"
#include "daemon/base/host_name.h"
#include "daemon/outputs/http/http_internal.h"
#include "daemon/outputs/http/tls_identity.h"
#include "text/format.h"

namespace yolo::daemon {

namespace {

// Open files the daemon keeps besides the connections (camera, models, logs, sockets, pipes).
constexpr long kOtherFiles = 128;

// "0.0.0.0:8080" -> host and port; the schema has checked the form.
std::pair<std::string, int> split_listen(const std::string& listen) {
  const auto colon = listen.rfind(':');
  std::string host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return {host, std::stoi(listen.substr(colon + 1))};
}

// A listening socket on host:port (port 0: one the system picks); -1 and `error` when not.
int bind_listen(const std::string& host, int port, std::string* error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (const int e =
          getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &found);
      e != 0) {
    *error = gai_strerror(e);
    return -1;
  }
  int fd = -1;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) continue;
    const int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || listen(fd, 128) != 0) {
      *error = std::strerror(errno);
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  return fd;
}

int bound_port(int fd) {
  sockaddr_storage addr{};
  socklen_t size = sizeof addr;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &size) != 0) return 0;
  if (addr.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
  return ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
}

}  // namespace

// One libmicrohttpd daemon on one bound socket, with the settings it was started with.
class HttpServer::Daemon {
 public:
  Daemon() = default;
  ~Daemon() { stop(); }
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  MHD_Daemon* daemon = nullptr;
  int listen_fd = -1;

  void stop() {
    if (daemon) {
      const MHD_socket fd = MHD_quiesce_daemon(daemon);
      MHD_stop_daemon(daemon);
      daemon = nullptr;
      if (fd != MHD_INVALID_SOCKET) listen_fd = fd;
    }
    if (listen_fd >= 0) close(listen_fd);
    listen_fd = -1;
  }
};

bool HttpServer::Settings::needs_restart(const Settings& o) const {
  return listen != o.listen || tls != o.tls || tls_cert != o.tls_cert || tls_key != o.tls_key ||
         max_clients != o.max_clients || max_clients_per_address != o.max_clients_per_address;
}

HttpServer::HttpServer(Events& events, HttpBackend backend, std::filesystem::path state_dir,
                       HttpLimits limits)
    : events_(events),
      backend_(std::move(backend)),
      state_dir_(std::move(state_dir)),
      limits_(limits),
      access_(state_dir_.empty() ? std::filesystem::path() : state_dir_ / "http-sessions.json"),
      connections_(limits.request_deadline, limits.busy_request_deadline) {}

HttpServer::~HttpServer() {
  HttpServer::stop();
}

HttpServer::Settings HttpServer::settings() const {
  std::lock_guard lock(mutex_);
  return settings_;
}

bool HttpServer::stopped() const {
  std::lock_guard lock(mutex_);
  return stopping_;
}

http::Clock::time_point HttpServer::encoded_at() const {
  std::lock_guard lock(mutex_);
  return encoded_at_;
}

void HttpServer::configure(const config::Config& config) {
  Settings s;
  const config::HttpConfig& h = config.http;
  s.listen = h.listen;
  s.auth = h.auth;
  s.password = h.password;
  s.token = h.token;
  s.metrics_allow =
      config::parse_address_list(h.metrics_allow, nullptr).value_or(std::vector<config::Network>{});
  s.tls = h.tls;
  s.tls_cert = h.tls_cert;
  s.tls_key = h.tls_key;
  s.max_fps = h.max_fps;
  s.jpeg_quality = h.jpeg_quality;
  s.max_viewers = h.max_viewers;
  s.max_clients = h.max_clients;
  s.max_clients_per_address = h.max_clients_per_address;
  s.snapshots = config.events.snapshots;
  s.crop = config.events.crop;
  s.clips = config.events.clips;

  if (s.auth == config::HttpAuth::kPassword && s.password.empty() && !s.listen.empty()) {
    bool created = false;
    try {
      s.password = config::load_or_create_credential(state_dir_, &created);
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
    } catch (const std::exception& e) {
      // No password can be had: nobody gets in, rather than everybody.
      events_.log().error(std::string("http: ") + e.what() + "; nobody can log in until then");
    }
  }
  access_.configure({s.auth, s.password, s.token, s.metrics_allow, s.tls});
  std::lock_guard lock(mutex_);
  if (s.needs_restart(settings_) || settings_.listen.empty()) rebind_ = true;
  settings_ = std::move(s);
  wake_.notify_all();
}

void HttpServer::start() {
  // One descriptor per connection: the soft limit (often 1024) would cut off the clients long
  // before http.max_clients; the hard limit is the system's to set.
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
  }
  open_files_ = getrlimit(RLIMIT_NOFILE, &files) == 0 ? static_cast<long>(files.rlim_cur) : 1024;
  listener_.start("http-listen", [this] { listen_loop(); });
  encoder_.start("http-encode", [this] { encode_loop(); });
  timer_.start("http-timer", [this] { timer_loop(); });
  controller_.start("http-control", [this] { control_loop(); });
}

void HttpServer::listen_loop() {
  for (;;) {
    Settings s;
    {
      std::unique_lock lock(mutex_);
      if (stopping_) return;
      rebind_ = false;
      s = settings_;
    }
    port_ = 0;
    if (s.listen.empty()) {
      std::unique_lock lock(mutex_);
      bound_to_.clear();
      warning_.clear();
      wake_.wait(lock, [&] { return stopping_ || rebind_; });
      continue;
    }
    const auto retry_later = [&](const std::string& warning) {
      std::unique_lock lock(mutex_);
      if (warning != warning_) events_.log().warning("http: " + warning);
      warning_ = warning;
      wake_.wait_for(lock, limits_.bind_retry, [&] { return stopping_ || rebind_; });
    };

    std::optional<TlsIdentity> tls;
    if (s.tls) {
      try {
        tls = s.tls_cert.empty() ? self_signed_tls_identity(state_dir_ / "tls", host_name())
                                 : read_tls_identity(s.tls_cert, s.tls_key);
      } catch (const std::exception& e) {
        retry_later(std::string("not serving: ") + e.what());
        continue;
      }
      if (!MHD_is_feature_supported(MHD_FEATURE_TLS)) {
        retry_later("http.tls is on but this libmicrohttpd has no TLS; turn http.tls off");
        continue;
      }
    }

    const auto [host, port] = split_listen(s.listen);
    std::string error;
    Daemon d;
    d.listen_fd = bind_listen(host, port, &error);
    if (d.listen_fd < 0) {
      retry_later("cannot listen on " + s.listen + " (" + error +
                  ": in use by another program, or not an address of this machine); set "
                  "http.listen, retrying every " +
                  std::to_string(limits_.bind_retry.count() / 1000) + " s");
      continue;
    }
    // Descriptors for everything else the daemon holds (camera, model files, logs, MQTT) stay
    // free: the connections get what is left of the process's limit, at most.
    const int usable = static_cast<int>(std::max(16L, open_files_ - kOtherFiles));
    if (s.max_clients > usable) {
      events_.log().warning("http: http.max_clients " + std::to_string(s.max_clients) +
                            " is more than the " + std::to_string(usable) +
                            " descriptors this process may use for connections (its limit of "
                            "open files is " +
                            std::to_string(open_files_) + "); serving at most " +
                            std::to_string(usable) +
                            " (raise LimitNOFILE= in the unit, or lower http.max_clients)");
      s.max_clients = usable;
    }
    connections_.limit(s.max_clients, s.max_clients_per_address);
    {
      std::lock_guard lock(waits_mutex_);
      closing_ = false;
    }
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME |
                     MHD_USE_ERROR_LOG;
    if (tls) flags |= MHD_USE_TLS;
    std::vector<MHD_OptionItem> options = {
        {MHD_OPTION_EXTERNAL_LOGGER, reinterpret_cast<intptr_t>(&HttpCallbacks::log), this},
        {MHD_OPTION_LISTEN_SOCKET, d.listen_fd, nullptr},
        // The backstop behind accept_from()'s own count, with room for the connections it has
        // cut that the loop has not closed yet.
        {MHD_OPTION_CONNECTION_LIMIT, s.max_clients + 16, nullptr},
        {MHD_OPTION_CONNECTION_TIMEOUT, static_cast<intptr_t>(limits_.idle_timeout.count()),
         nullptr},
        {MHD_OPTION_CONNECTION_MEMORY_LIMIT, static_cast<intptr_t>(limits_.connection_memory),
         nullptr},
        {MHD_OPTION_NOTIFY_COMPLETED, reinterpret_cast<intptr_t>(&HttpCallbacks::completed), this},
        {MHD_OPTION_NOTIFY_CONNECTION, reinterpret_cast<intptr_t>(&HttpCallbacks::connection),
         this},
    };
    if (tls) {
      options.push_back({MHD_OPTION_HTTPS_MEM_KEY, 0, tls->key.data()});
      options.push_back({MHD_OPTION_HTTPS_MEM_CERT, 0, tls->certificate.data()});
    }
    options.push_back({MHD_OPTION_END, 0, nullptr});
    d.daemon = MHD_start_daemon(flags, 0, &HttpCallbacks::accept, this, &HttpCallbacks::access,
                                this, MHD_OPTION_ARRAY, options.data(), MHD_OPTION_END);
    if (!d.daemon) {
      // MHD closes nothing it was given when it fails to start.
      retry_later("cannot start the HTTP server on " + s.listen +
                  (tls ? " (the TLS certificate or key was refused)" : std::string()) +
                  "; retrying every " + std::to_string(limits_.bind_retry.count() / 1000) + " s");
      continue;
    }
    port_ = bound_port(d.listen_fd);
    const std::string scheme = tls ? "https" : "http";
    {
      std::lock_guard lock(mutex_);
      warning_.clear();
      bound_to_ = host + ":" + std::to_string(port_.load());
      scheme_ = scheme;
      fingerprint_ = tls ? tls->fingerprint : "";
      jpegs_.reopen();
      events_out_.reopen();
    }
    events_.log().info("http: serving " + scheme + "://" + bound_to_ + "/ (the page), " +
                       "/stream.mjpg, /api/status, /api/detections, /api/events, /api/counts, "
                       "/metrics" +
                       (s.auth == config::HttpAuth::kNone ? "; open to all (http.auth: none)"
                                                          : "; behind a login"));
    if (tls) {
      events_.log().info(
          "http: TLS certificate " + (tls->created ? "made (self-signed), " : std::string()) +
          tls->certificate_file.string() + ", SHA-256 fingerprint " + tls->fingerprint +
          ": a browser's certificate details should show the same");
    }
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || rebind_; });
    }
    // Every suspended answer back on the loop (an API violation to stop without), then stop.
    {
      std::lock_guard lock(waits_mutex_);
      closing_ = true;
    }
    resume_all();
    port_ = 0;
    d.stop();
    connections_.forget();
  }
}

void HttpServer::stats(const DaemonStatus& status) {
  std::string precision = runtime::precision_name(status.model.precision);
  std::transform(precision.begin(), precision.end(), precision.begin(), ::toupper);
  const int n = status.inference.threads;
  std::string text = precision + " " + status.model.name + " " + std::to_string(n) +
                     (n == 1 ? " thread" : " threads") + " " +
                     text::fixed(status.inference.fps, 1) + " fps";
  if (const auto hottest = status.device ? status.device->max_celsius() : std::nullopt) {
    text += " " + text::fixed(*hottest, 0) + " C";
  }
  std::lock_guard lock(mutex_);
  overlay_ = std::move(text);
}

nlohmann::json HttpServer::status() const {
  const std::size_t connections = connections_.open();
  std::lock_guard lock(mutex_);
  nlohmann::json j = {{"ok", warning_.empty()},
                      {"listen", settings_.listen},
                      {"port", port_.load()},
                      {"scheme", scheme_},
                      {"auth", settings_.auth == config::HttpAuth::kNone ? "none" : "password"},
                      {"viewers", viewers_.load()},
                      {"event_clients", event_clients_.load()},
                      {"connections", connections},
                      {"frames_encoded", frames_encoded_.load()},
                      {"stream_fps", text::rounded(stream_fps_.load(), 1)},
                      {"requests", requests_.load()},
                      {"refused", refused_.load()},
                      {"refused_connections", connections_.refused()},
                      {"requests_cut_off", connections_.cut_off()},
                      {"failed_logins", access_.failed_logins()},
                      {"sessions", access_.sessions()}};
  if (!fingerprint_.empty()) j["tls_fingerprint"] = fingerprint_;
  if (!warning_.empty()) j["warning"] = warning_;
  return j;
}

void HttpServer::metrics(MetricsSink& sink) const {
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

bool HttpServer::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && !listener_.running() && !encoder_.running() && !timer_.running() &&
        !controller_.running()) {
      return true;
    }
    stopping_ = true;
  }
  wake_.notify_all();
  jobs_ready_.notify_all();
  timers_.notify_all();
  jpegs_.close();
  events_out_.close();
  const auto budget = std::chrono::milliseconds(2500);
  // The control thread may be waiting on the control loop (up to control_timeout): the server
  // stops without waiting for it to answer.
  const bool listener = listener_.stop_within(budget);
  const bool encoder = encoder_.stop_within(budget);
  const bool timer = timer_.stop_within(budget);
  const bool control = controller_.stop_within(budget);
  return listener && encoder && timer && control;
}

}  // namespace yolo::daemon
