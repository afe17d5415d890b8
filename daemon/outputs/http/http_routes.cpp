// SPDX-License-Identifier: Apache-2.0
// Requests: the access handler, the routes, the login, the snapshot and the control API.
#include <arpa/inet.h>
#include <microhttpd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "daemon/outputs/http/http_internal.h"
#include "daemon/outputs/http/web_assets.h"

namespace yolo::daemon {

using http::Clock;
using http::kNever;
using http::queue;
using http::queue_error;

namespace {

// A snapshot younger than this is served as it is; an older one waits for the next frame.
constexpr auto kSnapshotFresh = std::chrono::seconds(1);

constexpr const char* kJson = "application/json";

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

}  // namespace

namespace http {

int queue(MHD_Connection* connection, int status, const std::string& body, const std::string& type,
          const Headers& headers) {
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
                const Headers& headers) {
  return queue(connection, status, nlohmann::json{{"error", message}}.dump() + "\n", kJson,
               headers);
}

}  // namespace http

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
      ex->address = http::address_of(info->client_addr);
    }
    *request = new std::shared_ptr<Exchange>(ex);
    ++requests_;
    const std::string length = header(connection, MHD_HEADER_KIND, "Content-Length");
    if (!length.empty() && std::strtoull(length.c_str(), nullptr, 10) > limits_.max_body) {
      connections_.request_received(connection);
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
  connections_.request_received(connection);
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

}  // namespace yolo::daemon
