// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/http/http_listener.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "config/listen_address.h"
#include "daemon/base/host_name.h"
#include "daemon/outputs/http/tls_identity.h"

namespace yolo::daemon::http {

namespace {

// Open files the daemon keeps besides the connections (camera, models, logs, sockets, pipes).
constexpr long kOtherFiles = 128;

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

// Whether the server must be started again to go from `a` to `b`.
bool needs_restart(const config::HttpConfig& a, const config::HttpConfig& b) {
  return a.listen != b.listen || a.tls != b.tls || a.tls_cert != b.tls_cert ||
         a.tls_key != b.tls_key || a.max_clients != b.max_clients ||
         a.max_clients_per_address != b.max_clients_per_address;
}

// One libmicrohttpd daemon on one bound socket.
class Daemon {
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

}  // namespace

// libmicrohttpd's C callbacks, which call into the listener.
struct ListenerCallbacks {
  static MHD_Result access(void* cls, MHD_Connection* connection, const char* url,
                           const char* method, const char*, const char* upload_data,
                           size_t* upload_data_size, void** request) {
    auto* listener = static_cast<Listener*>(cls);
    return listener->answer(connection, url, method, upload_data, upload_data_size, request) ==
                   MHD_YES
               ? MHD_YES
               : MHD_NO;
  }

  static MHD_Result accept(void* cls, const sockaddr* addr, socklen_t) {
    return static_cast<Listener*>(cls)->connections_.accept_from(address_of(addr)) ? MHD_YES
                                                                                   : MHD_NO;
  }

  static void connection(void* cls, MHD_Connection* connection, void**,
                         MHD_ConnectionNotificationCode code) {
    // The loop's thread, named for top -H and the per-thread CPU figures (once).
    thread_local bool named = false;
    if (!named) {
      pthread_setname_np(pthread_self(), "http");
      named = true;
    }
    auto* listener = static_cast<Listener*>(cls);
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
      listener->connections_.started(connection);
    } else {
      listener->connections_.closed(connection);
    }
  }

  static void completed(void* cls, MHD_Connection* connection, void** request,
                        MHD_RequestTerminationCode) {
    delete static_cast<std::shared_ptr<Exchange>*>(*request);
    *request = nullptr;
    static_cast<Listener*>(cls)->connections_.request_done(connection);
  }

  static void log(void* cls, const char* format, va_list ap) {
    char text[512];
    std::vsnprintf(text, sizeof text, format, ap);
    std::string message = text;
    while (!message.empty() && message.back() == '\n') message.pop_back();
    static_cast<Listener*>(cls)->events_.log().debug("http (libmicrohttpd): " + message);
  }
};

namespace {

// libmicrohttpd on `listen_fd`, calling back into `listener`; null when it would not start.
MHD_Daemon* start_daemon(Listener* listener, int listen_fd, int max_clients,
                         const HttpLimits& limits, const TlsIdentity* tls) {
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME |
                   MHD_USE_ERROR_LOG;
  if (tls) flags |= MHD_USE_TLS;
  std::vector<MHD_OptionItem> options = {
      {MHD_OPTION_EXTERNAL_LOGGER, reinterpret_cast<intptr_t>(&ListenerCallbacks::log), listener},
      {MHD_OPTION_LISTEN_SOCKET, listen_fd, nullptr},
      // The backstop behind accept_from()'s own count, with room for the connections it has
      // cut that the loop has not closed yet.
      {MHD_OPTION_CONNECTION_LIMIT, max_clients + 16, nullptr},
      {MHD_OPTION_CONNECTION_TIMEOUT, static_cast<intptr_t>(limits.idle_timeout.count()), nullptr},
      {MHD_OPTION_CONNECTION_MEMORY_LIMIT, static_cast<intptr_t>(limits.connection_memory),
       nullptr},
      {MHD_OPTION_NOTIFY_COMPLETED, reinterpret_cast<intptr_t>(&ListenerCallbacks::completed),
       listener},
      {MHD_OPTION_NOTIFY_CONNECTION, reinterpret_cast<intptr_t>(&ListenerCallbacks::connection),
       listener},
  };
  if (tls) {
    // Read, never written (libmicrohttpd's option items hold a plain pointer).
    options.push_back({MHD_OPTION_HTTPS_MEM_KEY, 0, const_cast<char*>(tls->key.c_str())});
    options.push_back({MHD_OPTION_HTTPS_MEM_CERT, 0, const_cast<char*>(tls->certificate.c_str())});
  }
  options.push_back({MHD_OPTION_END, 0, nullptr});
  return MHD_start_daemon(flags, 0, &ListenerCallbacks::accept, listener,
                          &ListenerCallbacks::access, listener, MHD_OPTION_ARRAY, options.data(),
                          MHD_OPTION_END);
}

}  // namespace

Listener::Listener(Events& events, const HttpLimits& limits, std::filesystem::path state_dir,
                   HttpConnections& connections, Hooks hooks)
    : events_(events),
      limits_(limits),
      state_dir_(std::move(state_dir)),
      connections_(connections),
      hooks_(std::move(hooks)) {}

void Listener::configure(const config::HttpConfig& http) {
  {
    std::lock_guard lock(mutex_);
    if (needs_restart(http_, http) || http_.listen.empty()) rebind_ = true;
    http_ = http;
  }
  wake_.notify_all();
}

void Listener::start() {
  // One descriptor per connection: the soft limit (often 1024) would cut off the clients long
  // before http.max_clients; the hard limit is the system's to set.
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
  }
  open_files_ = getrlimit(RLIMIT_NOFILE, &files) == 0 ? static_cast<long>(files.rlim_cur) : 1024;
  thread_.start("http-listen", [this] { loop(); });
}

Listener::State Listener::state() const {
  std::lock_guard lock(mutex_);
  return {port_.load(), scheme_, warning_, fingerprint_, requests_.load()};
}

void Listener::loop() {
  for (;;) {
    config::HttpConfig http;
    {
      std::lock_guard lock(mutex_);
      if (thread_.stopping()) return;
      rebind_ = false;
      http = http_;
    }
    port_ = 0;
    if (http.listen.empty()) {
      std::unique_lock lock(mutex_);
      warning_.clear();
      wake_.wait(lock, [&] { return thread_.stopping() || rebind_; });
      continue;
    }
    if (const auto problem = run_server(std::move(http))) retry_later(*problem);
  }
}

void Listener::retry_later(const std::string& warning) {
  std::unique_lock lock(mutex_);
  if (warning != warning_) events_.log().warning("http: " + warning);
  warning_ = warning;
  wake_.wait_for(lock, limits_.bind_retry, [&] { return thread_.stopping() || rebind_; });
}

int Listener::client_bound(int max_clients) const {
  // Descriptors for everything else the daemon holds (camera, model files, logs, MQTT) stay
  // free: the connections get what is left of the process's limit, at most.
  const int usable = static_cast<int>(std::max(16L, open_files_ - kOtherFiles));
  if (max_clients <= usable) return max_clients;
  events_.log().warning("http: http.max_clients " + std::to_string(max_clients) +
                        " is more than the " + std::to_string(usable) +
                        " descriptors this process may use for connections (its limit of "
                        "open files is " +
                        std::to_string(open_files_) + "); serving at most " +
                        std::to_string(usable) +
                        " (raise LimitNOFILE= in the unit, or lower http.max_clients)");
  return usable;
}

std::optional<std::string> Listener::run_server(config::HttpConfig http) {
  std::optional<TlsIdentity> tls;
  if (http.tls) {
    try {
      tls = http.tls_cert.empty() ? self_signed_tls_identity(state_dir_ / "tls", host_name())
                                  : read_tls_identity(http.tls_cert, http.tls_key);
    } catch (const std::exception& e) {
      return std::string("not serving: ") + e.what();
    }
    if (!MHD_is_feature_supported(MHD_FEATURE_TLS)) {
      return "http.tls is on but this libmicrohttpd has no TLS; turn http.tls off";
    }
  }

  const auto [host, port] = config::listen_address(http.listen);
  std::string error;
  Daemon d;
  d.listen_fd = bind_listen(host, port, &error);
  const std::string retrying =
      "retrying every " + std::to_string(limits_.bind_retry.count() / 1000) + " s";
  if (d.listen_fd < 0) {
    return "cannot listen on " + http.listen + " (" + error +
           ": in use by another program, or not an address of this machine); set http.listen, " +
           retrying;
  }
  const int max_clients = client_bound(http.max_clients);
  connections_.limit(max_clients, http.max_clients_per_address);
  hooks_.opening();
  d.daemon = start_daemon(this, d.listen_fd, max_clients, limits_, tls ? &*tls : nullptr);
  if (!d.daemon) {
    // MHD closes nothing it was given when it fails to start.
    return "cannot start the HTTP server on " + http.listen +
           (tls ? " (the TLS certificate or key was refused)" : std::string()) + "; " + retrying;
  }
  port_ = bound_port(d.listen_fd);
  const std::string scheme = tls ? "https" : "http";
  const std::string bound_to = host + ":" + std::to_string(port_.load());
  {
    std::lock_guard lock(mutex_);
    warning_.clear();
    scheme_ = scheme;
    fingerprint_ = tls ? tls->fingerprint : "";
  }
  events_.log().info("http: serving " + scheme + "://" + bound_to + "/ (the page), " +
                     "/stream.mjpg, /api/status, /api/detections, /api/events, /api/counts, "
                     "/metrics" +
                     (http.auth == config::HttpAuth::kNone ? "; open to all (http.auth: none)"
                                                           : "; behind a login"));
  if (tls) {
    events_.log().info("http: TLS certificate " +
                       (tls->created ? "made (self-signed), " : std::string()) +
                       tls->certificate_file.string() + ", SHA-256 fingerprint " +
                       tls->fingerprint + ": a browser's certificate details should show the same");
  }
  {
    std::unique_lock lock(mutex_);
    wake_.wait(lock, [&] { return thread_.stopping() || rebind_; });
  }
  hooks_.closing();
  port_ = 0;
  d.stop();
  connections_.forget();
  return std::nullopt;
}

int Listener::answer(MHD_Connection* connection, const char* url, const char* method,
                     const char* upload_data, std::size_t* upload_data_size, void** request) {
  const auto too_big = [&] {
    return queue_error(
        connection, 413,
        "request body too large (at most " + std::to_string(limits_.max_body / 1024) + " KiB)");
  };
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
    const std::string length = request_header(connection, "Content-Length");
    if (!length.empty() && std::strtoull(length.c_str(), nullptr, 10) > limits_.max_body) {
      connections_.request_received(connection);
      return too_big();
    }
    return MHD_YES;
  }
  const std::shared_ptr<Exchange> ex = *static_cast<std::shared_ptr<Exchange>*>(*request);
  if (*upload_data_size > 0) {
    if (ex->body.size() + *upload_data_size > limits_.max_body) {
      ex->body_too_big = true;
    } else {
      ex->body.append(upload_data, *upload_data_size);
    }
    *upload_data_size = 0;
    return MHD_YES;
  }
  connections_.request_received(connection);
  if (ex->body_too_big) return too_big();
  return hooks_.serve(ex);
}

}  // namespace yolo::daemon::http
