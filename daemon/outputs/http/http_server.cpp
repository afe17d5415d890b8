// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/http/http_server.h"

#include <arpa/inet.h>
#include <malloc.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <deque>
#include <opencv2/imgcodecs.hpp>
#include <thread>
#include <vector>

#include "config/credential.h"
#include "daemon/base/host_name.h"
#include "daemon/base/utc_time.h"
#include "daemon/outputs/http/tls_identity.h"
#include "daemon/outputs/http/web_assets.h"
#include "text/format.h"
#include "vision/annotate.h"
#include "vision/detection_json.h"

namespace yolo::daemon {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kNever = Clock::time_point::max();

// An event stream with nothing to say sends a comment this often, which also finds clients that
// left.
constexpr auto kEventKeepAlive = std::chrono::seconds(10);
// A snapshot younger than this is served as it is; an older one waits for the next frame.
constexpr auto kSnapshotFresh = std::chrono::seconds(1);
// The encoder runs below inference: under load the stream slows, never the detections.
constexpr int kEncoderNice = 10;
// The timer thread also cuts overdue requests this often.
constexpr auto kSweep = std::chrono::milliseconds(250);
// Open files the daemon keeps besides the connections (camera, models, logs, sockets, pipes).
constexpr long kOtherFiles = 128;
// The kernel's send buffer of a stream's socket.
constexpr int kStreamSocketBuffer = 128 * 1024;
// Bytes handed to the socket per call of a stream's body.
constexpr std::size_t kStreamBlock = 32 * 1024;

constexpr const char* kJson = "application/json";
constexpr const char* kBoundary = "frame";

std::string error_json(const std::string& message) {
  return nlohmann::json{{"error", message}}.dump() + "\n";
}

// "0.0.0.0:8080" -> host and port; the schema has checked the form.
std::pair<std::string, int> split_listen(const std::string& listen) {
  const auto colon = listen.rfind(':');
  std::string host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return {host, std::stoi(listen.substr(colon + 1))};
}

HttpAccess::Address address_of(const sockaddr* addr) {
  HttpAccess::Address out{};
  if (addr == nullptr) return out;
  if (addr->sa_family == AF_INET) {
    out[10] = out[11] = 0xff;
    std::memcpy(out.data() + 12, &reinterpret_cast<const sockaddr_in*>(addr)->sin_addr, 4);
  } else if (addr->sa_family == AF_INET6) {
    std::memcpy(out.data(), &reinterpret_cast<const sockaddr_in6*>(addr)->sin6_addr, 16);
  }
  return out;
}

std::string address_text(const HttpAccess::Address& a) {
  char text[INET6_ADDRSTRLEN] = "?";
  static constexpr std::uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (std::memcmp(a.data(), kMapped, 12) == 0) {
    inet_ntop(AF_INET, a.data() + 12, text, sizeof text);
  } else {
    inet_ntop(AF_INET6, a.data(), text, sizeof text);
  }
  return text;
}

nlohmann::json detections_json(const FrameResult& r) {
  nlohmann::json list = nlohmann::json::array();
  for (const vision::Detection& d : r.detections) {
    list.push_back(vision::detection_json(
        d, r.model ? r.model->names.name(d.class_id) : std::to_string(d.class_id)));
  }
  nlohmann::json j = {{"frame", r.index},
                      {"time", iso8601_utc(r.wall)},
                      {"latency_ms",
                       {{"inference", text::rounded(r.times.inference_ms, 2)},
                        {"end_to_end", text::rounded(r.times.end_to_end_ms, 2)}}},
                      {"detections", std::move(list)}};
  if (r.model) {
    j["model"] = r.model->name;
    j["precision"] = runtime::precision_name(r.model->precision);
  }
  if (r.frame && !r.frame->empty()) j["size"] = {r.frame->cols, r.frame->rows};
  return j;
}

// Holds one of the max_viewers places for as long as a stream lasts.
class ClientPlace {
 public:
  explicit ClientPlace(std::atomic<int>& count) : count_(count) { ++count_; }
  ~ClientPlace() { --count_; }
  ClientPlace(const ClientPlace&) = delete;
  ClientPlace& operator=(const ClientPlace&) = delete;

 private:
  std::atomic<int>& count_;
};

// The login form, served at GET /login and as the body of a 401 to a browser. Self-contained,
// like the page; {{ERROR}} becomes the reason of a failed attempt.
constexpr std::string_view kLoginPage = R"html(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>yolo-edge: log in</title>
<style>
  body { font-family: system-ui, sans-serif; background: #111; color: #eee; display: flex;
         min-height: 100vh; margin: 0; align-items: center; justify-content: center; }
  form { background: #1d1d1d; padding: 1.5em; border-radius: 8px; width: min(22em, 92vw);
         box-sizing: border-box; }
  h1 { font-size: 1.2em; margin: 0 0 1em; }
  input { width: 100%; box-sizing: border-box; font-size: 1.1em; padding: 0.5em; margin: 0.3em 0 1em;
          border-radius: 4px; border: 1px solid #444; background: #000; color: #eee; }
  button { width: 100%; font-size: 1.1em; padding: 0.6em; border: 0; border-radius: 4px;
           background: #2b6cb0; color: #fff; }
  .error { color: #f88; }
  .hint { color: #999; font-size: 0.85em; }
</style>
</head>
<body>
<form method="post" action="/login">
  <h1>yolo-edge</h1>
  {{ERROR}}
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" autofocus required>
  <button type="submit">Log in</button>
  <p class="hint">On the device: <code>sudo yolo-edge config --show-credential</code></p>
</form>
</body>
</html>
)html";

std::string login_page(const std::string& error) {
  std::string page(kLoginPage);
  const std::string marker = "{{ERROR}}";
  page.replace(page.find(marker), marker.size(),
               error.empty() ? "" : "<p class=\"error\">" + error + "</p>");
  return page;
}

std::string seconds_text(std::chrono::milliseconds ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0f s", std::ceil(ms.count() / 1000.0));
  return text;
}

}  // namespace

// One request: what it asks for, what it has received, and what it waits for.
class HttpServer::Exchange {
 public:
  MHD_Connection* connection = nullptr;
  std::string method;
  std::string path;
  HttpAccess::Address address{};
  // The body as received, up to HttpLimits::max_body.
  std::string body;
  bool body_too_big = false;
  MHD_PostProcessor* form = nullptr;
  std::string password;

  // Guarded by the server's waits_mutex_.
  bool suspended = false;
  unsigned wake = 0;
  Clock::time_point until = kNever;

  // A snapshot's wait: for a frame numbered after `after`, until `deadline`.
  std::uint64_t after = 0;
  Clock::time_point asked{};
  Clock::time_point deadline = kNever;
  // An answer made but held back (a failed login's delay) until `deadline`.
  int held_status = 0;
  std::string held_body;
  std::string held_type;
  std::vector<std::pair<std::string, std::string>> held_headers;

  // A stream's position: the last item sent, and what is left of the one being sent.
  std::shared_ptr<ClientPlace> place;
  std::uint64_t sent = 0;
  std::string head;
  std::shared_ptr<const std::string> item;
  std::string tail;
  std::size_t at = 0;
  bool hello = true;
  Clock::time_point quiet_since = Clock::now();

  // A control request handed to the control thread, and its reply.
  ControlRequest request;
  bool queued = false;
  bool done = false;
  std::optional<ControlReply> reply;

  ~Exchange() {
    if (form) MHD_destroy_post_processor(form);
  }
};

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

struct HttpCallbacks {
  static MHD_Result access(void* cls, MHD_Connection* connection, const char* url,
                           const char* method, const char*, const char* upload_data,
                           size_t* upload_data_size, void** request) {
    auto* server = static_cast<HttpServer*>(cls);
    return server->answer(connection, url, method, upload_data, upload_data_size, request) ==
                   MHD_YES
               ? MHD_YES
               : MHD_NO;
  }

  static MHD_Result accept(void* cls, const sockaddr* addr, socklen_t) {
    return static_cast<HttpServer*>(cls)->accept_from(address_of(addr)) ? MHD_YES : MHD_NO;
  }

  static void connection(void* cls, MHD_Connection* connection, void**,
                         MHD_ConnectionNotificationCode code) {
    // The loop's thread, named for top -H and the per-thread CPU figures (once).
    thread_local bool named = false;
    if (!named) {
      pthread_setname_np(pthread_self(), "http");
      named = true;
    }
    auto* server = static_cast<HttpServer*>(cls);
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
      server->connection_started(connection);
    } else {
      server->connection_closed(connection);
    }
  }

  static void completed(void* cls, MHD_Connection* connection, void** request,
                        MHD_RequestTerminationCode) {
    auto* ex = static_cast<std::shared_ptr<HttpServer::Exchange>*>(*request);
    delete ex;
    *request = nullptr;
    static_cast<HttpServer*>(cls)->request_done(connection);
  }

  static void log(void* cls, const char* format, va_list ap) {
    char text[512];
    std::vsnprintf(text, sizeof text, format, ap);
    std::string message = text;
    while (!message.empty() && message.back() == '\n') message.pop_back();
    static_cast<HttpServer*>(cls)->events_.log().debug("http (libmicrohttpd): " + message);
  }

  struct Body {
    HttpServer* server;
    std::shared_ptr<HttpServer::Exchange> ex;
    bool events;
  };

  static ssize_t body(void* cls, uint64_t, char* buffer, size_t max) {
    auto* b = static_cast<Body*>(cls);
    return b->events ? b->server->event_body(b->ex, buffer, max)
                     : b->server->stream_body(b->ex, buffer, max);
  }

  static void free_body(void* cls) { delete static_cast<Body*>(cls); }

  static MHD_Result form_field(void* cls, MHD_ValueKind, const char* key, const char*, const char*,
                               const char*, const char* data, uint64_t off, size_t size) {
    auto* ex = static_cast<HttpServer::Exchange*>(cls);
    if (std::strcmp(key, "password") != 0) return MHD_YES;
    if (off == 0) ex->password.clear();
    if (ex->password.size() + size > 4096) return MHD_NO;
    ex->password.append(data, size);
    return MHD_YES;
  }
};

namespace {

// A response with our headers, queued on `connection`.
int queue(MHD_Connection* connection, int status, const std::string& body, const std::string& type,
          const std::vector<std::pair<std::string, std::string>>& headers = {}) {
  MHD_Response* response = MHD_create_response_from_buffer(
      body.size(), const_cast<char*>(body.data()), MHD_RESPMEM_MUST_COPY);
  if (!response) return MHD_NO;
  MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, type.c_str());
  MHD_add_response_header(response, "X-Content-Type-Options", "nosniff");
  for (const auto& [name, value] : headers) {
    MHD_add_response_header(response, name.c_str(), value.c_str());
  }
  const MHD_Result result = MHD_queue_response(connection, static_cast<unsigned>(status), response);
  MHD_destroy_response(response);
  return result;
}

int queue_error(MHD_Connection* connection, int status, const std::string& message,
                const std::vector<std::pair<std::string, std::string>>& headers = {}) {
  return queue(connection, status, error_json(message), kJson, headers);
}

std::string header(MHD_Connection* connection, MHD_ValueKind kind, const char* name) {
  const char* value = MHD_lookup_connection_value(connection, kind, name);
  return value ? value : "";
}

// What each path answers to.
struct Route {
  std::string_view path;
  std::string_view method;
};
constexpr Route kRoutes[] = {
    {"/", "GET"},
    {"/index.html", "GET"},
    {"/stream.mjpg", "GET"},
    {"/snapshot.jpg", "GET"},
    {"/api/status", "GET"},
    {"/api/detections", "GET"},
    {"/metrics", "GET"},
    {"/login", "GET POST"},
    {"/logout", "POST"},
    {"/api/precision", "POST"},
    {"/api/reload", "POST"},
};

// Whether `method` is one of the route's (a space-separated list).
bool allows(const Route& route, std::string_view method) {
  std::string_view rest = route.method;
  while (!rest.empty()) {
    const std::size_t space = rest.find(' ');
    if (rest.substr(0, space) == method) return true;
    rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
  }
  return false;
}

const Route* route_of(std::string_view path) {
  for (const Route& r : kRoutes) {
    if (r.path == path) return &r;
  }
  return nullptr;
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
      access_(state_dir_.empty() ? std::filesystem::path() : state_dir_ / "http-sessions.json") {}

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

Clock::time_point HttpServer::encoded_at() const {
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
    {
      std::lock_guard lock(connections_mutex_);
      max_clients_ = s.max_clients;
      max_per_address_ = s.max_clients_per_address;
    }
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
                       "/stream.mjpg, /api/status, /api/detections, /metrics" +
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
    forget_connections();
  }
}

bool HttpServer::accept_from(const HttpAccess::Address& address) {
  std::lock_guard lock(connections_mutex_);
  const auto it = per_address_.find(address);
  if (it != per_address_.end() && it->second >= max_per_address_) {
    ++refused_connections_;
    return false;
  }
  if (static_cast<int>(connections_.size()) >= max_clients_) {
    // Full: the connection that has taken longest to send its request makes room (a slow
    // client holding a place), so the page and the API stay reachable while many hosts trickle.
    // Connections that are being answered (streams, waits) are never cut for it.
    Connection* oldest = nullptr;
    for (auto& [connection, c] : connections_) {
      if (c.receiving && c.fd >= 0 && (!oldest || c.since < oldest->since)) oldest = &c;
    }
    if (!oldest) {
      ++refused_connections_;
      return false;
    }
    shutdown(oldest->fd, SHUT_RDWR);
    oldest->fd = -1;
    ++cut_off_;
  }
  return true;
}

void HttpServer::connection_started(MHD_Connection* connection) {
  Connection c;
  if (const auto* info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD)) {
    c.fd = info->connect_fd;
  }
  if (const auto* info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS)) {
    c.address = address_of(info->client_addr);
  }
  c.since = Clock::now();
  std::lock_guard lock(connections_mutex_);
  ++per_address_[c.address];
  connections_[connection] = c;
}

void HttpServer::connection_closed(MHD_Connection* connection) {
  std::lock_guard lock(connections_mutex_);
  const auto it = connections_.find(connection);
  if (it == connections_.end()) return;
  const auto per = per_address_.find(it->second.address);
  if (per != per_address_.end() && --per->second <= 0) per_address_.erase(per);
  connections_.erase(it);
}

void HttpServer::request_received(MHD_Connection* connection) {
  std::lock_guard lock(connections_mutex_);
  const auto it = connections_.find(connection);
  if (it != connections_.end()) it->second.receiving = false;
}

void HttpServer::request_done(MHD_Connection* connection) {
  // A kept-alive connection waits for its next request: that one has its own deadline.
  std::lock_guard lock(connections_mutex_);
  const auto it = connections_.find(connection);
  if (it == connections_.end()) return;
  it->second.receiving = true;
  it->second.since = Clock::now();
}

void HttpServer::cut_overdue() {
  const auto now = Clock::now();
  std::lock_guard lock(connections_mutex_);
  const bool busy = static_cast<int>(connections_.size()) * 4 > max_clients_ * 3;
  const auto deadline = busy ? limits_.busy_request_deadline : limits_.request_deadline;
  for (auto& [connection, c] : connections_) {
    if (!c.receiving || c.fd < 0 || now - c.since < deadline) continue;
    // The loop sees the socket end and closes the connection; the descriptor stays valid until
    // connection_closed() has taken it out of this table (it runs under the same lock).
    shutdown(c.fd, SHUT_RDWR);
    c.fd = -1;
    ++cut_off_;
  }
}

void HttpServer::forget_connections() {
  std::lock_guard lock(connections_mutex_);
  connections_.clear();
  per_address_.clear();
}

int HttpServer::answer(MHD_Connection* connection, const char* url, const char* method,
                       const char* upload_data, std::size_t* upload_data_size, void** request) {
  if (*request == nullptr) {
    // The request line and headers are in.
    auto ex = std::make_shared<Exchange>();
    ex->connection = connection;
    ex->method = method;
    ex->path = url;
    if (const auto* info =
            MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS)) {
      ex->address = address_of(info->client_addr);
    }
    *request = new std::shared_ptr<Exchange>(ex);
    ++requests_;
    const std::string length = header(connection, MHD_HEADER_KIND, "Content-Length");
    if (!length.empty() && std::strtoull(length.c_str(), nullptr, 10) > limits_.max_body) {
      request_received(connection);
      return queue_error(
          connection, 413,
          "request body too large (at most " + std::to_string(limits_.max_body / 1024) + " KiB)");
    }
    if (ex->path == "/login" && ex->method == "POST") {
      ex->form = MHD_create_post_processor(connection, 1024, &HttpCallbacks::form_field, ex.get());
    }
    return MHD_YES;
  }
  const std::shared_ptr<Exchange> ex = *static_cast<std::shared_ptr<Exchange>*>(*request);
  if (*upload_data_size > 0) {
    if (ex->body.size() + *upload_data_size > limits_.max_body) {
      ex->body_too_big = true;
    } else {
      ex->body.append(upload_data, *upload_data_size);
      if (ex->form) MHD_post_process(ex->form, upload_data, *upload_data_size);
    }
    *upload_data_size = 0;
    return MHD_YES;
  }
  request_received(connection);
  if (ex->body_too_big) {
    return queue_error(
        connection, 413,
        "request body too large (at most " + std::to_string(limits_.max_body / 1024) + " KiB)");
  }
  return serve(ex);
}

int HttpServer::serve(const std::shared_ptr<Exchange>& ex) {
  MHD_Connection* c = ex->connection;
  const Route* route = route_of(ex->path);
  if (!route) {
    return queue_error(c, 404,
                       "nothing at " + ex->path +
                           "; the page is /, the stream /stream.mjpg, the API /api/status, "
                           "/api/detections, /snapshot.jpg and /metrics");
  }
  const bool head = ex->method == "HEAD" && allows(*route, "GET");
  if (!head && !allows(*route, ex->method)) {
    std::string allowed(route->method);
    std::replace(allowed.begin(), allowed.end(), ' ', ',');
    return queue_error(c, 405, "this address only answers " + std::string(route->method),
                       {{"Allow", allowed}});
  }
  if (ex->path == "/login") return serve_login(ex);
  const std::string cookie = header(c, MHD_COOKIE_KIND, HttpAccess::kCookie);
  const std::string authorization = header(c, MHD_HEADER_KIND, "Authorization");
  if (ex->path == "/logout") {
    access_.logout(cookie);
    return queue(c, 303, "", "text/plain",
                 {{"Location", "/login"}, {"Set-Cookie", access_.set_cookie("")}});
  }
  if (ex->path == "/metrics") {
    if (!access_.may_scrape(ex->address, cookie, authorization)) {
      return queue_error(c, 401,
                         "scraping needs 'Authorization: Bearer <password or http.token>', or "
                         "the scraper's address in http.metrics_allow",
                         {{"WWW-Authenticate", "Bearer realm=\"yolo-edge\""}});
    }
    return queue(c, 200, backend_.metrics(), "text/plain; version=0.0.4; charset=utf-8",
                 {{"Cache-Control", "no-store"}});
  }
  const HttpAccess::Grant grant = access_.grant(cookie, authorization);
  if (grant == HttpAccess::Grant::kNothing) {
    if (ex->path == "/" || ex->path == "/index.html") {
      return queue(
          c, 401, login_page(""), "text/html; charset=utf-8",
          {{"WWW-Authenticate", "Bearer realm=\"yolo-edge\""}, {"Cache-Control", "no-store"}});
    }
    // Basic is offered beside Bearer for players that ask for a user and password (VLC, Home
    // Assistant's MJPEG camera): the password is the live view's, any user name.
    return queue_error(c, 401,
                       "log in first (the page at / asks for the password), or send "
                       "'Authorization: Bearer <password or http.token>' (or HTTP Basic with "
                       "the password and any user name)",
                       {{"WWW-Authenticate", "Bearer realm=\"yolo-edge\""},
                        {"WWW-Authenticate", "Basic realm=\"yolo-edge\", charset=\"UTF-8\""},
                        {"Cache-Control", "no-store"}});
  }
  if (ex->method == "POST") {
    if (grant != HttpAccess::Grant::kControl) {
      const bool no_token = settings().token.empty();
      if (no_token) {
        return queue_error(c, 403,
                           "changing the daemon over HTTP is off: set http.token in the config "
                           "to a long random secret and send it as 'Authorization: Bearer "
                           "<token>' (or use http.auth: password)");
      }
      return queue_error(c, 401,
                         authorization.starts_with("Bearer ")
                             ? "wrong token (http.token)"
                             : "this needs 'Authorization: Bearer <http.token>'",
                         {{"WWW-Authenticate", "Bearer realm=\"yolo-edge\""}});
    }
    return serve_control(ex);
  }
  if (ex->path == "/" || ex->path == "/index.html") {
    return queue(c, 200, std::string(web::index_html()), "text/html; charset=utf-8",
                 {{"Cache-Control", "no-cache"},
                  {"Content-Security-Policy",
                   "default-src 'self'; style-src 'self' 'unsafe-inline'; "
                   "script-src 'self' 'unsafe-inline'; img-src 'self' data:"}});
  }
  if (ex->path == "/api/status") {
    const auto status = backend_.status();
    if (!status) return queue_error(c, 503, "starting: no status yet");
    return queue(c, 200, to_json(*status).dump() + "\n", kJson, {{"Cache-Control", "no-store"}});
  }
  if (ex->path == "/stream.mjpg") return serve_stream(ex, false);
  if (ex->path == "/api/detections") return serve_stream(ex, true);
  return serve_snapshot(ex);
}

int HttpServer::serve_login(const std::shared_ptr<Exchange>& ex) {
  MHD_Connection* c = ex->connection;
  if (ex->held_status != 0) {
    // A held answer whose time has come (or the server stops).
    if (Clock::now() < ex->deadline && suspend(ex, 0, ex->deadline)) return MHD_YES;
    return queue(c, ex->held_status, ex->held_body, ex->held_type, ex->held_headers);
  }
  if (ex->method != "POST") {
    if (access_.mode() == config::HttpAuth::kNone) {
      return queue(c, 303, "", "text/plain", {{"Location", "/"}});
    }
    return queue(c, 200, login_page(""), "text/html; charset=utf-8",
                 {{"Cache-Control", "no-store"}});
  }
  const HttpAccess::Login result = access_.login(ex->password, ex->address);
  if (result.ok) {
    ex->held_status = 303;
    ex->held_type = "text/plain";
    ex->held_headers = {{"Location", "/"},
                        {"Set-Cookie", access_.set_cookie(result.session)},
                        {"Cache-Control", "no-store"}};
  } else {
    const std::string who = address_text(ex->address);
    // The first failures and then every tenth: a guessing run is seen, not logged line by line.
    if (result.failures <= 3 || result.failures % 10 == 0) {
      const auto next = HttpAccess::login_delay(result.failures);
      events_.log().warning("http: failed login from " + who + " (" +
                            std::to_string(result.failures) +
                            " in a row); its next attempt is answered after " + seconds_text(next) +
                            " (doubling up to " + seconds_text(HttpAccess::kMaxLoginDelay) + ")");
    }
    ex->held_status = 401;
    ex->held_type = "text/html; charset=utf-8";
    ex->held_body =
        login_page(ex->password.empty() ? "Type the password." : "Wrong password; try again.");
    ex->held_headers = {{"Cache-Control", "no-store"}};
  }
  ex->deadline = Clock::now() + result.delay;
  if (result.delay.count() > 0 && suspend(ex, 0, ex->deadline)) return MHD_YES;
  return queue(c, ex->held_status, ex->held_body, ex->held_type, ex->held_headers);
}

int HttpServer::serve_stream(const std::shared_ptr<Exchange>& ex, bool events) {
  MHD_Connection* c = ex->connection;
  const int cap = settings().max_viewers;
  if (viewers_.load() + event_clients_.load() >= cap) {
    ++refused_;
    return queue_error(c, 503,
                       "too many viewers: " + std::to_string(cap) +
                           " streams are open (http.max_viewers); close one or raise the setting",
                       {{"Retry-After", "10"}});
  }
  ex->place = std::make_shared<ClientPlace>(events ? event_clients_ : viewers_);
  ex->sent = events ? events_out_.last() : 0;
  if (!events) wake_.notify_all();
  MHD_Response* response = MHD_create_response_from_callback(
      MHD_SIZE_UNKNOWN, kStreamBlock, &HttpCallbacks::body,
      new HttpCallbacks::Body{this, ex, events}, &HttpCallbacks::free_body);
  if (!response) return MHD_NO;
  MHD_add_response_header(
      response, MHD_HTTP_HEADER_CONTENT_TYPE,
      events ? "text/event-stream"
             : (std::string("multipart/x-mixed-replace; boundary=") + kBoundary).c_str());
  MHD_add_response_header(response, "Cache-Control", "no-store");
  MHD_add_response_header(response, "X-Content-Type-Options", "nosniff");
  if (events) {
    MHD_add_response_header(response, "X-Accel-Buffering", "no");
  } else {
    MHD_add_response_header(response, "Pragma", "no-cache");
  }
  // A client that stops reading is dropped after this, and its place is free again. Its socket
  // holds a few frames, not the megabytes the kernel would grow it to: a slow viewer gets fresh
  // frames instead of old ones queued, and one that stopped reading is found within seconds.
  MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT,
                            static_cast<unsigned>(limits_.stream_write_timeout.count()));
  if (const auto* info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD)) {
    const int bytes = kStreamSocketBuffer;
    setsockopt(info->connect_fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes);
  }
  const MHD_Result result = MHD_queue_response(c, MHD_HTTP_OK, response);
  MHD_destroy_response(response);
  return result;
}

long HttpServer::stream_body(const std::shared_ptr<Exchange>& ex, char* buffer, std::size_t max) {
  if (ex->at >= ex->head.size() + (ex->item ? ex->item->size() : 0) + ex->tail.size()) {
    // The last part went out whole: the next frame, or a wait for one.
    std::lock_guard lock(waits_mutex_);
    if (closing_) return MHD_CONTENT_READER_END_OF_STREAM;
    const auto [number, jpeg] = jpegs_.newest();
    const auto now = Clock::now();
    // Without a new frame for a while (a lost camera), the last one again: a connection that
    // only waits is not watched, so a viewer that left would keep its place; a write finds it.
    const bool repeat = jpeg && number == ex->sent && now >= ex->until && ex->until != kNever;
    if (!jpeg || (number <= ex->sent && !repeat)) {
      ex->suspended = true;
      ex->wake = kOnFrame;
      ex->until = now + limits_.viewer_check;
      MHD_suspend_connection(ex->connection);
      waiting_.push_back(ex);
      timers_.notify_all();
      return 0;
    }
    ex->until = kNever;
    ex->sent = number;
    char head[128];
    std::snprintf(head, sizeof head,
                  "--%s\r\nContent-Type: image/jpeg\r\nContent-Length: %zu\r\n\r\n", kBoundary,
                  jpeg->size());
    ex->head = head;
    ex->item = jpeg;
    ex->tail = "\r\n";
    ex->at = 0;
  }
  // Copies from head, frame and tail, in order, as far as `max` goes.
  std::size_t written = 0;
  const std::string_view pieces[] = {ex->head, *ex->item, ex->tail};
  std::size_t offset = ex->at;
  for (const std::string_view piece : pieces) {
    if (offset >= piece.size()) {
      offset -= piece.size();
      continue;
    }
    const std::size_t n = std::min(piece.size() - offset, max - written);
    std::memcpy(buffer + written, piece.data() + offset, n);
    written += n;
    offset = 0;
    if (written == max) break;
  }
  ex->at += written;
  return static_cast<long>(written);
}

long HttpServer::event_body(const std::shared_ptr<Exchange>& ex, char* buffer, std::size_t max) {
  if (ex->at >= ex->tail.size()) {
    ex->tail.clear();
    ex->at = 0;
    if (ex->hello) {
      ex->hello = false;
      // Browsers reconnect after this many milliseconds when the stream breaks.
      ex->tail = "retry: 2000\n\n";
    } else {
      std::lock_guard lock(waits_mutex_);
      if (closing_) return MHD_CONTENT_READER_END_OF_STREAM;
      for (const auto& [number, text] :
           events_out_.wait_after(ex->sent, std::chrono::milliseconds(0))) {
        ex->sent = number;
        ex->tail += *text;
      }
      const auto now = Clock::now();
      if (ex->tail.empty() && now - ex->quiet_since >= kEventKeepAlive)
        ex->tail = ": keep-alive\n\n";
      if (ex->tail.empty()) {
        ex->suspended = true;
        ex->wake = kOnEvent;
        ex->until = ex->quiet_since + kEventKeepAlive;
        MHD_suspend_connection(ex->connection);
        waiting_.push_back(ex);
        timers_.notify_all();
        return 0;
      }
      ex->quiet_since = now;
    }
  }
  const std::size_t n = std::min(max, ex->tail.size() - ex->at);
  std::memcpy(buffer, ex->tail.data() + ex->at, n);
  ex->at += n;
  return static_cast<long>(n);
}

int HttpServer::serve_snapshot(const std::shared_ptr<Exchange>& ex) {
  MHD_Connection* c = ex->connection;
  auto [number, jpeg] = jpegs_.newest();
  if (ex->deadline == kNever) {
    // The first look: a frame of the newest result is served (at one frame a minute it may be
    // a minute old and still the latest), else the next one is waited for, up to
    // snapshot_wait or a few intervals between results when they come slower than that.
    // Results that stopped coming (a lost camera) make the newest an old one, though.
    const auto pace = std::chrono::milliseconds(std::llround(3 * result_interval_ms_.load()));
    const auto since_result =
        Clock::now() - Clock::time_point(Clock::duration(last_result_ns_.load()));
    const bool newest = encoded_index_.load() == latest_index_.load() &&
                        since_result < std::max<Clock::duration>(kSnapshotFresh, pace);
    if (jpeg && (newest || Clock::now() - encoded_at() < kSnapshotFresh)) {
      return queue(c, 200, *jpeg, "image/jpeg", {{"Cache-Control", "no-store"}});
    }
    ex->after = number;
    ex->asked = Clock::now();
    ex->deadline = Clock::now() + std::max<Clock::duration>(limits_.snapshot_wait, pace);
    ++snapshot_waiters_;
    wake_.notify_all();
  } else if (jpeg && number > ex->after) {
    --snapshot_waiters_;
    return queue(c, 200, *jpeg, "image/jpeg", {{"Cache-Control", "no-store"}});
  }
  if (Clock::now() < ex->deadline && suspend(ex, kOnFrame, ex->deadline)) return MHD_YES;
  --snapshot_waiters_;
  std::string why = "no frame in the last " +
                    std::to_string(static_cast<long>(std::lround(
                        std::chrono::duration<double>(Clock::now() - ex->asked).count()))) +
                    " s";
  if (const auto status = backend_.status()) {
    why += ": the source is " + std::string(state_name(status->source.state));
    if (!status->source.last_error.empty()) why += " (" + status->source.last_error + ")";
  }
  return queue_error(c, 503, why, {{"Retry-After", "5"}});
}

int HttpServer::serve_control(const std::shared_ptr<Exchange>& ex) {
  MHD_Connection* c = ex->connection;
  if (!ex->queued) {
    if (ex->path == "/api/precision") {
      const nlohmann::json body = nlohmann::json::parse(ex->body, nullptr, false);
      if (body.is_discarded() || !body.is_object()) {
        return queue_error(c, 400, "the body must be JSON like {\"precision\": \"int8\"}");
      }
      const auto it = body.find("precision");
      if (it == body.end() || !it->is_string()) {
        return queue_error(c, 400,
                           "missing \"precision\": send {\"precision\": \"fp32\"} or "
                           "{\"precision\": \"int8\"}");
      }
      ex->request = {ControlRequest::Kind::kPrecision, it->get<std::string>(), {}};
    } else {
      ex->request = {ControlRequest::Kind::kReload, {}, {}};
    }
    ex->request.origin = ex->method + " " + ex->path + " from " + address_text(ex->address);
    ex->queued = true;
    {
      std::lock_guard lock(jobs_mutex_);
      jobs_.push_back(ex);
    }
    jobs_ready_.notify_one();
  }
  bool done = false;
  {
    std::lock_guard lock(jobs_mutex_);
    done = ex->done;
  }
  if (!done && suspend(ex, kOnJob, kNever)) return MHD_YES;
  {
    // suspend() declines when the job ended since the look above: look again.
    std::lock_guard lock(jobs_mutex_);
    done = ex->done;
  }
  if (!done || !ex->reply) {
    return queue_error(
        c, done ? 504 : 503,
        done ? "the daemon did not answer in time; see its log" : "the daemon is stopping");
  }
  const ControlReply& reply = *ex->reply;
  const nlohmann::json body = {{"ok", reply.outcome == ControlReply::Outcome::kApplied},
                               {"message", reply.message},
                               {"changed", reply.changed}};
  const int status = reply.outcome == ControlReply::Outcome::kApplied   ? 200
                     : reply.outcome == ControlReply::Outcome::kRefused ? 422
                                                                        : 503;
  return queue(c, status, body.dump() + "\n", kJson);
}

void HttpServer::control_loop() {
  for (;;) {
    std::shared_ptr<Exchange> ex;
    {
      std::unique_lock lock(jobs_mutex_);
      jobs_ready_.wait(lock, [&] { return !jobs_.empty() || stopped(); });
      if (jobs_.empty()) return;
      ex = jobs_.front();
      jobs_.erase(jobs_.begin());
    }
    std::optional<ControlReply> reply;
    if (!stopped()) reply = backend_.control(ex->request, limits_.control_timeout);
    {
      std::lock_guard lock(jobs_mutex_);
      ex->reply = std::move(reply);
      ex->done = true;
    }
    resume(ex);
  }
}

bool HttpServer::suspend(const std::shared_ptr<Exchange>& ex, unsigned wake,
                         Clock::time_point until) {
  std::lock_guard lock(waits_mutex_);
  if (closing_) return false;
  if (wake & kOnJob) {
    // The job may have ended between the look and here: no wait then.
    std::lock_guard jobs(jobs_mutex_);
    if (ex->done) return false;
  }
  ex->suspended = true;
  ex->wake = wake;
  ex->until = until;
  MHD_suspend_connection(ex->connection);
  waiting_.push_back(ex);
  if (until != kNever) timers_.notify_all();
  return true;
}

void HttpServer::resume(unsigned wake) {
  const auto now = Clock::now();
  std::lock_guard lock(waits_mutex_);
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    Exchange& ex = **it;
    if ((ex.wake & wake) != 0 || ex.until <= now) {
      MHD_resume_connection(ex.connection);
      ex.suspended = false;
      it = waiting_.erase(it);
    } else {
      ++it;
    }
  }
}

void HttpServer::resume(const std::shared_ptr<Exchange>& ex) {
  std::lock_guard lock(waits_mutex_);
  const auto it = std::find(waiting_.begin(), waiting_.end(), ex);
  if (it == waiting_.end()) return;
  MHD_resume_connection(ex->connection);
  ex->suspended = false;
  waiting_.erase(it);
}

void HttpServer::resume_all() {
  std::lock_guard lock(waits_mutex_);
  for (const auto& ex : waiting_) {
    MHD_resume_connection(ex->connection);
    ex->suspended = false;
  }
  waiting_.clear();
  timers_.notify_all();
}

void HttpServer::timer_loop() {
  for (;;) {
    {
      std::unique_lock lock(waits_mutex_);
      Clock::time_point next = Clock::now() + kSweep;
      for (const auto& ex : waiting_) next = std::min(next, ex->until);
      timers_.wait_until(lock, next);
    }
    if (stopped()) return;
    resume(0);
    cut_overdue();
    release_flood_memory();
  }
}

void HttpServer::release_flood_memory() {
  // A flood of connections leaves their freed buffers (a few KiB each) in the allocator's heap,
  // where they count in the daemon's RSS for good; once most have gone, hand them back.
  std::size_t open = 0;
  {
    std::lock_guard lock(connections_mutex_);
    open = connections_.size();
  }
  peak_connections_ = std::max(peak_connections_, open);
  if (peak_connections_ >= kFloodConnections && open <= peak_connections_ / 4) {
    malloc_trim(0);
    peak_connections_ = open;
  }
}

void HttpServer::publish(std::shared_ptr<const FrameResult> result) {
  // The pace of results, for how long a snapshot may wait for the next one.
  const auto now = Clock::now();
  const std::int64_t previous = last_result_ns_.exchange(now.time_since_epoch().count());
  if (previous != 0) {
    const double gap = std::chrono::duration<double, std::milli>(
                           now - Clock::time_point(Clock::duration(previous)))
                           .count();
    const double mean = result_interval_ms_.load();
    result_interval_ms_ = mean == 0 ? gap : (mean * 3 + gap) / 4;
  }
  latest_index_ = result->index;
  if (event_clients_.load() == 0 && !result->frame) return;
  {
    std::lock_guard lock(mutex_);
    latest_ = std::move(result);
  }
  wake_.notify_all();
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
bool HttpServer::wants_frame() const {
  return viewers_.load() > 0 || snapshot_waiters_.load() > 0;
}

std::shared_ptr<const std::string> HttpServer::encode(const FrameResult& result,
                                                      const Settings& s) const {
  cv::Mat image = result.frame->clone();
  if (result.model) vision::annotate(image, result.detections, result.model->names);
  std::string overlay;
  {
    std::lock_guard lock(mutex_);
    overlay = overlay_;
  }
  if (!overlay.empty()) vision::draw_status(image, overlay);
  std::vector<unsigned char> bytes;
  if (!cv::imencode(".jpg", image, bytes, {cv::IMWRITE_JPEG_QUALITY, s.jpeg_quality})) {
    return nullptr;
  }
  return std::make_shared<const std::string>(bytes.begin(), bytes.end());
}

void HttpServer::encode_loop() {
  setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kEncoderNice);
  Clock::time_point due{};
  std::deque<Clock::time_point> recent;
  for (;;) {
    std::shared_ptr<const FrameResult> result;
    Settings s;
    {
      std::unique_lock lock(mutex_);
      wake_.wait_for(lock, kSweep, [&] { return stopping_ || latest_; });
      if (stopping_) return;
      result = std::move(latest_);
      latest_.reset();
      s = settings_;
    }
    const auto now = Clock::now();
    while (!recent.empty() && now - recent.front() > std::chrono::seconds(3)) recent.pop_front();
    stream_fps_ = recent.size() < 2 ? 0.0 : static_cast<double>(recent.size()) / 3.0;
    if (!result) continue;
    if (event_clients_.load() > 0) {
      auto text = std::make_shared<const std::string>(
          "id: " + std::to_string(result->index) +
          "\nevent: detections\ndata: " + detections_json(*result).dump() + "\n\n");
      events_out_.push(std::move(text));
      resume(kOnEvent);
    }
    if (!result->frame || result->frame->empty() || !wants_frame()) continue;
    // Paced to max_fps on a schedule, so frames arriving a little faster than it are not halved.
    const auto period =
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / s.max_fps));
    if (now < due - period / 10) continue;
    due = now - due > period ? now + period : due + period;
    if (auto jpeg = encode(*result, s)) {
      {
        std::lock_guard lock(mutex_);
        encoded_at_ = Clock::now();
      }
      encoded_index_ = result->index;
      jpegs_.push(std::move(jpeg));
      resume(kOnFrame);
      ++frames_encoded_;
      recent.push_back(now);
    }
  }
}

nlohmann::json HttpServer::status() const {
  std::size_t connections = 0;
  {
    std::lock_guard lock(connections_mutex_);
    connections = connections_.size();
  }
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
                      {"refused_connections", refused_connections_.load()},
                      {"requests_cut_off", cut_off_.load()},
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
