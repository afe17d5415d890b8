// SPDX-License-Identifier: Apache-2.0
// What the HTTP server's files share and nothing else includes: the exchange of one request, the
// C callbacks libmicrohttpd calls, and the helpers that queue an answer.
#pragma once

#include <microhttpd.h>
#include <pthread.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "daemon/outputs/http/http_server.h"

namespace yolo::daemon {

namespace http {

using Clock = std::chrono::steady_clock;
constexpr auto kNever = Clock::time_point::max();

using Headers = std::vector<std::pair<std::string, std::string>>;

// A response with our headers, queued on `connection`.
int queue(MHD_Connection* connection, int status, const std::string& body, const std::string& type,
          const Headers& headers = {});
// A JSON {"error": message} response.
int queue_error(MHD_Connection* connection, int status, const std::string& message,
                const Headers& headers = {});

HttpAccess::Address address_of(const sockaddr* addr);

// `text` as a whole number of 1 to 18 digits and nothing else (no sign, space or path): event
// ids in paths, Last-Event-ID and the query.
std::optional<std::int64_t> whole_number(std::string_view text);

// An event as GET /api/events and the event stream give it: tracking::to_json() and the
// addresses of its snapshot, crop and clip, each when its file is in `state_dir`'s events folder
// or, with `expected`, when the settings say one is made for such an event (it may be written a
// moment after the event is sent).
struct ExpectedMedia {
  const std::vector<tracking::ObjectEventKind>& snapshots;
  bool crop;
  const std::vector<tracking::ObjectEventKind>& clips;
};
nlohmann::json event_json(const tracking::ObjectEvent& event,
                          const std::filesystem::path& state_dir,
                          const ExpectedMedia* expected = nullptr);
// A scene's zones and lines with their counts (by class; by local hour with `hours`) and
// occupancy, in the order of the config.
nlohmann::json counts_json(const SceneState& scene, bool hours);

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

}  // namespace http

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
  http::Clock::time_point until = http::kNever;

  // A snapshot's wait: for a frame numbered after `after`, until `deadline`.
  std::uint64_t after = 0;
  http::Clock::time_point asked{};
  http::Clock::time_point deadline = http::kNever;
  // An answer made but held back (a failed login's delay) until `deadline`.
  int held_status = 0;
  std::string held_body;
  std::string held_type;
  http::Headers held_headers;

  // A stream's position: the last item sent, and what is left of the one being sent.
  std::shared_ptr<http::ClientPlace> place;
  std::uint64_t sent = 0;
  std::string head;
  std::shared_ptr<const std::string> item;
  std::string tail;
  std::size_t at = 0;
  bool hello = true;
  http::Clock::time_point quiet_since = http::Clock::now();

  // An event stream's place in the event log (the last object event sent), and the counts message
  // it had last.
  std::int64_t event_id = 0;
  std::shared_ptr<const std::string> counts_sent;

  // A counts reset handed to the control thread, and whether the place was found.
  std::string reset_camera;
  std::string reset_place;
  std::optional<bool> reset;

  // A control request handed to the control thread, and its reply.
  ControlRequest request;
  bool queued = false;
  bool done = false;
  std::optional<ControlReply> reply;

  ~Exchange() {
    if (form) MHD_destroy_post_processor(form);
  }
};

// libmicrohttpd's C callbacks, which call into the server.
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
    return static_cast<HttpServer*>(cls)->connections_.accept_from(http::address_of(addr)) ? MHD_YES
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
    auto* server = static_cast<HttpServer*>(cls);
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
      server->connections_.started(connection);
    } else {
      server->connections_.closed(connection);
    }
  }

  static void completed(void* cls, MHD_Connection* connection, void** request,
                        MHD_RequestTerminationCode) {
    auto* ex = static_cast<std::shared_ptr<HttpServer::Exchange>*>(*request);
    delete ex;
    *request = nullptr;
    static_cast<HttpServer*>(cls)->connections_.request_done(connection);
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

}  // namespace yolo::daemon
