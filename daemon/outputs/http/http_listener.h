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

#include "config/config.h"
#include "daemon/core/events.h"
#include "daemon/outputs/http/http_connections.h"
#include "daemon/outputs/http/http_exchange.h"
#include "daemon/outputs/http/http_limits.h"
#include "daemon/outputs/http/http_loop_thread.h"

namespace yolo::daemon::http {

// libmicrohttpd on http.listen: binds (again every HttpLimits::bind_retry while the address is
// taken), starts the server (with TLS when asked), starts it again when the address, TLS or the
// client bounds change, and turns each request into an Exchange for `serve` once it is in whole.
// Its own thread binds and waits; the requests are served on libmicrohttpd's thread (the loop).
class Listener {
 public:
  struct Hooks {
    // Answers an exchange whose request is in whole (again after each resume).
    std::function<int(const std::shared_ptr<Exchange>&)> serve;
    // Before a server starts taking requests, and before it stops (its loop still running).
    std::function<void()> opening;
    std::function<void()> closing;
  };
  // What it tells the status.
  struct State {
    int port = 0;
    std::string scheme = "http";
    // Why it is not serving, if so.
    std::string warning;
    std::string tls_fingerprint;
    std::uint64_t requests = 0;
  };

  // `state_dir`: where a self-signed certificate is kept.
  Listener(Events& events, const HttpLimits& limits, std::filesystem::path state_dir,
           HttpConnections& connections, Hooks hooks);

  // Takes http.*: a changed address, TLS setting or client bound starts the server again (its
  // clients are dropped); an empty http.listen stops it.
  void configure(const config::HttpConfig& http);
  void start();
  bool stop_within(std::chrono::milliseconds limit) { return thread_.stop_within(limit); }

  // The port it listens on (the one the system chose for port 0); 0 while not listening.
  int port() const { return port_.load(); }
  State state() const;

 private:
  // libmicrohttpd's C callbacks, which call into the members below.
  friend struct ListenerCallbacks;

  void loop();
  // http.max_clients within what the process may open (said when it is cut).
  int client_bound(int max_clients) const;
  // Runs libmicrohttpd on `http` until it must start again or stop; what kept it from serving,
  // if anything.
  std::optional<std::string> run_server(config::HttpConfig http);
  // Says why it is not serving, and waits before the next attempt.
  void retry_later(const std::string& warning);
  // The access handler: one call per request once its headers are in, more while a body comes
  // and after each resume.
  int answer(MHD_Connection* connection, const char* url, const char* method,
             const char* upload_data, std::size_t* upload_data_size, void** request);

  Events& events_;
  const HttpLimits limits_;
  const std::filesystem::path state_dir_;
  HttpConnections& connections_;
  const Hooks hooks_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  config::HttpConfig http_;
  // Set by configure() when the server must start again (or stop).
  bool rebind_ = false;
  std::string warning_;
  std::string scheme_ = "http";
  std::string fingerprint_;
  std::atomic<int> port_{0};
  std::atomic<std::uint64_t> requests_{0};
  // The process's limit of open files (after start() raised it to the hard limit).
  long open_files_ = 1024;
  LoopThread thread_{mutex_, wake_};
};

}  // namespace yolo::daemon::http
