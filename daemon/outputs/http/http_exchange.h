// SPDX-License-Identifier: Apache-2.0
// What the HTTP server's parts share and nothing else includes: the exchange of one request and
// the helpers that read it and queue its answer on libmicrohttpd's connection.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "daemon/outputs/http/http_access.h"

struct MHD_Connection;
struct sockaddr;

namespace yolo::daemon::http {

using Clock = std::chrono::steady_clock;
constexpr auto kNever = Clock::time_point::max();

using Headers = std::vector<std::pair<std::string, std::string>>;

struct Route;

// What wakes a suspended exchange, besides its time and the server closing.
enum Wake : unsigned { kOnFrame = 1, kOnEvent = 2, kOnJob = 4 };

// An answer made before it may be sent: a failed login's (sent after its delay), or a control
// job's (made on the control thread).
struct Answer {
  int status = 0;
  std::string body;
  std::string type;
  Headers headers;
};

// Holds one of the http.max_viewers places for as long as a stream lasts.
class ClientPlace {
 public:
  explicit ClientPlace(std::atomic<int>& count) : count_(count) { ++count_; }
  ~ClientPlace() { --count_; }
  ClientPlace(const ClientPlace&) = delete;
  ClientPlace& operator=(const ClientPlace&) = delete;

 private:
  std::atomic<int>& count_;
};

// One request: what it asks for, what it has received, and what it waits for.
class Exchange {
 public:
  MHD_Connection* connection = nullptr;
  std::string method;
  std::string path;
  HttpAccess::Address address{};
  // Its row of the route table (null: no route has its path), and the id its "{id}" or the
  // camera its "{camera}" stood for.
  const Route* route = nullptr;
  std::int64_t id = 0;
  std::string camera;
  // The body as received, up to HttpLimits::max_body.
  std::string body;
  bool body_too_big = false;

  // Guarded by WaitingExchanges' mutex.
  unsigned wake = 0;
  Clock::time_point until = kNever;
  // Its control job has run (or was dropped as the server stopped).
  bool done = false;

  // A snapshot's wait: for a frame numbered after `after`, until `deadline`.
  std::uint64_t after = 0;
  Clock::time_point asked{};
  Clock::time_point deadline = kNever;
  // An answer made but held back: a failed login's until `deadline`, a control job's until the
  // exchange is back on the loop.
  std::optional<Answer> held;

  // A control request: what the control thread runs for it (once), making its answer.
  std::function<Answer()> job;
  bool queued = false;

  // A stream's position: the last item sent, and what is left of the one being sent.
  std::shared_ptr<ClientPlace> place;
  std::uint64_t sent = 0;
  std::string head;
  std::shared_ptr<const std::string> item;
  std::string tail;
  std::size_t at = 0;
  bool hello = true;
  Clock::time_point quiet_since = Clock::now();

  // An event stream's place in the event log (the last object event sent), and the counts
  // message it had last.
  std::int64_t event_id = 0;
  std::shared_ptr<const std::string> counts_sent;
};

// A response with our headers, queued on `connection`.
int queue(MHD_Connection* connection, int status, const std::string& body, const std::string& type,
          const Headers& headers = {});
int queue(MHD_Connection* connection, const Answer& answer);
// A JSON {"error": message} answer.
Answer error_answer(int status, const std::string& message, const Headers& headers = {});
int queue_error(MHD_Connection* connection, int status, const std::string& message,
                const Headers& headers = {});
// A 200 with JSON that no cache keeps.
int queue_json(MHD_Connection* connection, const std::string& json_text);

// What a stream's `next` returns when the stream has ended (the server closes).
constexpr long kEndOfStream = -1;
// An endless 200 of `type` whose body `next` gives a piece at a time: the bytes it put in
// `buffer` (at most `max`), 0 when it has suspended the exchange until there is more, or
// kEndOfStream. A client that takes nothing for `write_timeout` is dropped.
int queue_stream(MHD_Connection* connection, const char* type, const Headers& headers,
                 std::chrono::seconds write_timeout,
                 std::function<long(char* buffer, std::size_t max)> next);

// A request header, a cookie and a query argument ("" or nothing when absent).
std::string request_header(MHD_Connection* connection, const char* name);
std::string cookie(MHD_Connection* connection, const char* name);
std::optional<std::string> query_argument(MHD_Connection* connection, const char* name);

HttpAccess::Address address_of(const sockaddr* addr);
// "192.168.1.20", "::1": for the log and a control request's origin.
std::string address_text(const HttpAccess::Address& address);

// `text` as a whole number of 1 to 18 digits and nothing else (no sign, space or path): event
// ids in paths, Last-Event-ID and the query.
std::optional<std::int64_t> whole_number(std::string_view text);

}  // namespace yolo::daemon::http
