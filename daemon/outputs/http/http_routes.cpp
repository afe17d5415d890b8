// SPDX-License-Identifier: Apache-2.0
// The route table, the dispatch through it, the access each route needs, and the login.
#include "daemon/outputs/http/http_routes.h"

#include <microhttpd.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "daemon/outputs/http/http_output.h"
#include "daemon/outputs/http/web_assets.h"
#include "text/format.h"

namespace yolo::daemon {

namespace http {

namespace {

constexpr std::string_view kId = "{id}";
constexpr std::string_view kCamera = "{camera}";

// What a camera's name may hold (config/sections/places.cpp's rule), 1 to 64 characters.
bool camera_name(std::string_view s) {
  return !s.empty() && s.size() <= 64 && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

}  // namespace

std::span<const Route> routes() {
  // In the order a 404 lists them; docs/live-view.md's table lists the same.
  static constexpr Route kRoutes[] = {
      {"/", "GET", Access::kPage, &HttpOutput::serve_page},
      {"/index.html", "GET", Access::kPage, &HttpOutput::serve_page, false},
      {"/stream.mjpg", "GET", Access::kView, &HttpOutput::serve_stream},
      {"/snapshot.jpg", "GET", Access::kView, &HttpOutput::serve_snapshot},
      {"/cameras/{camera}/stream.mjpg", "GET", Access::kView, &HttpOutput::serve_stream},
      {"/cameras/{camera}/snapshot.jpg", "GET", Access::kView, &HttpOutput::serve_snapshot},
      {"/api/status", "GET", Access::kView, &HttpOutput::serve_status},
      {"/api/detections", "GET", Access::kView, &HttpOutput::serve_detections},
      {"/api/events", "GET", Access::kView, &HttpOutput::serve_events},
      {"/api/events/{id}/snapshot.jpg", "GET", Access::kView, &HttpOutput::serve_event_snapshot},
      {"/api/events/{id}/crop.jpg", "GET", Access::kView, &HttpOutput::serve_event_crop},
      {"/api/events/{id}/clip.avi", "GET", Access::kView, &HttpOutput::serve_event_clip},
      {"/api/counts", "GET", Access::kView, &HttpOutput::serve_counts},
      {"/metrics", "GET", Access::kMetrics, &HttpOutput::serve_metrics},
      {"/login", "GET POST", Access::kPublic, &HttpOutput::serve_login, false},
      {"/logout", "POST", Access::kPublic, &HttpOutput::serve_logout, false},
      {"/api/precision", "POST", Access::kControl, &HttpOutput::serve_precision},
      {"/api/reload", "POST", Access::kControl, &HttpOutput::serve_reload},
      {"/api/counts/reset", "POST", Access::kControl, &HttpOutput::serve_counts_reset},
  };
  return kRoutes;
}

bool allows(const Route& route, std::string_view method) {
  std::string_view rest = route.methods;
  while (!rest.empty()) {
    const std::size_t space = rest.find(' ');
    if (rest.substr(0, space) == method) return true;
    rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
  }
  return false;
}

Match route_of(std::string_view path) {
  for (const Route& r : routes()) {
    const bool by_camera = r.path.find(kCamera) != std::string_view::npos;
    const std::string_view field = by_camera ? kCamera : kId;
    const std::size_t at = r.path.find(field);
    if (at == std::string_view::npos) {
      if (r.path == path) return {&r, 0, {}};
      continue;
    }
    const std::string_view before = r.path.substr(0, at);
    const std::string_view after = r.path.substr(at + field.size());
    if (path.size() <= before.size() + after.size() || !path.starts_with(before) ||
        !path.ends_with(after)) {
      continue;
    }
    const std::string_view value =
        path.substr(before.size(), path.size() - before.size() - after.size());
    if (by_camera) {
      if (camera_name(value)) return {&r, 0, std::string(value)};
    } else if (const auto id = whole_number(value)) {
      return {&r, *id, {}};
    }
  }
  return {};
}

std::string routes_text() {
  std::string text;
  for (const std::string_view method : {"GET", "POST"}) {
    text += text.empty() ? "" : "; ";
    text += method;
    bool first = true;
    for (const Route& r : routes()) {
      if (!r.listed || !allows(r, method)) continue;
      text += (first ? " " : ", ") + std::string(r.path);
      first = false;
    }
  }
  return text;
}

}  // namespace http

namespace {

using http::Access;
using http::Clock;
using http::queue;
using http::queue_error;

constexpr const char* kHtml = "text/html; charset=utf-8";

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

// Whole seconds, rounded up: a wait is never said shorter than it is.
std::string seconds_text(std::chrono::milliseconds ms) {
  return text::duration_text(std::chrono::ceil<std::chrono::seconds>(ms));
}

MHD_Result form_field(void* cls, MHD_ValueKind, const char* key, const char*, const char*,
                      const char*, const char* data, uint64_t off, size_t size) {
  auto* password = static_cast<std::string*>(cls);
  if (std::strcmp(key, "password") != 0) return MHD_YES;
  if (off == 0) password->clear();
  if (password->size() + size > 4096) return MHD_NO;
  password->append(data, size);
  return MHD_YES;
}

// The field "password" of the login form in `ex`'s body (URL-encoded or multipart, as browsers
// post it); "" when there is none.
std::string form_password(const http::Exchange& ex) {
  std::string password;
  const std::unique_ptr<MHD_PostProcessor, decltype(&MHD_destroy_post_processor)> form(
      MHD_create_post_processor(ex.connection, 1024, &form_field, &password),
      &MHD_destroy_post_processor);
  if (form) MHD_post_process(form.get(), ex.body.data(), ex.body.size());
  return password;
}

}  // namespace

int HttpOutput::serve(const ExchangePtr& ex) {
  MHD_Connection* c = ex->connection;
  const http::Match match = http::route_of(ex->path);
  ex->route = match.route;
  ex->id = match.id;
  ex->camera = match.camera;
  if (!ex->route) {
    return queue_error(c, 404,
                       "nothing at " + ex->path + "; the page is /, and this server answers " +
                           http::routes_text() +
                           " ({id}: an event's id, digits only; {camera}: a camera's name)");
  }
  const bool head = ex->method == "HEAD" && http::allows(*ex->route, "GET");
  if (!head && !http::allows(*ex->route, ex->method)) {
    std::string allowed(ex->route->methods);
    std::replace(allowed.begin(), allowed.end(), ' ', ',');
    return queue_error(c, 405, "this address only answers " + std::string(ex->route->methods),
                       {{"Allow", allowed}});
  }
  if (const auto refused = refuse(*ex)) return *refused;
  // A control request back on the loop: its job's answer.
  if (ex->queued) return answer_job(ex);
  return (this->*ex->route->handler)(ex);
}

std::optional<int> HttpOutput::refuse(const http::Exchange& ex) const {
  const Access access = ex.route->access;
  if (access == Access::kPublic) return std::nullopt;
  MHD_Connection* c = ex.connection;
  const std::string cookie = http::cookie(c, HttpAccess::kCookie);
  const std::string authorization = http::request_header(c, "Authorization");
  if (access == Access::kMetrics) {
    if (access_.may_scrape(ex.address, cookie, authorization)) return std::nullopt;
    return queue_error(c, 401,
                       "scraping needs 'Authorization: Bearer <password or http.token>', or "
                       "the scraper's address in http.metrics_allow",
                       {{"WWW-Authenticate", "Bearer realm=\"yolo-edge\""}});
  }
  const HttpAccess::Grant grant = access_.grant(cookie, authorization);
  if (grant == HttpAccess::Grant::kNothing) {
    if (access == Access::kPage) {
      return queue(
          c, 401, login_page(""), kHtml,
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
  if (access != Access::kControl || grant == HttpAccess::Grant::kControl) return std::nullopt;
  bool no_token = false;
  {
    std::lock_guard lock(mutex_);
    no_token = http_.token.empty();
  }
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

int HttpOutput::serve_page(const ExchangePtr& ex) {
  return queue(ex->connection, 200, std::string(web::index_html()), kHtml,
               {{"Cache-Control", "no-cache"},
                {"Content-Security-Policy",
                 "default-src 'self'; style-src 'self' 'unsafe-inline'; "
                 "script-src 'self' 'unsafe-inline'; img-src 'self' data:"}});
}

int HttpOutput::serve_login(const ExchangePtr& ex) {
  MHD_Connection* c = ex->connection;
  if (ex->held) {
    // A held answer whose time has come (or the server stops).
    if (Clock::now() < ex->deadline && waiting_.suspend(ex, 0, ex->deadline)) return MHD_YES;
    return queue(c, *ex->held);
  }
  if (ex->method != "POST") {
    if (access_.mode() == config::HttpAuth::kNone) {
      return queue(c, 303, "", "text/plain", {{"Location", "/"}});
    }
    return queue(c, 200, login_page(""), kHtml, {{"Cache-Control", "no-store"}});
  }
  const std::string password = form_password(*ex);
  const HttpAccess::Login result = access_.login(password, ex->address);
  if (result.ok) {
    ex->held = http::Answer{303,
                            "",
                            "text/plain",
                            {{"Location", "/"},
                             {"Set-Cookie", access_.set_cookie(result.session)},
                             {"Cache-Control", "no-store"}}};
  } else {
    const std::string who = http::address_text(ex->address);
    // The first failures and then every tenth: a guessing run is seen, not logged line by line.
    if (result.failures <= 3 || result.failures % 10 == 0) {
      const auto next = HttpAccess::login_delay(result.failures);
      events_.log().warning("http: failed login from " + who + " (" +
                            std::to_string(result.failures) +
                            " in a row); its next attempt is answered after " + seconds_text(next) +
                            " (doubling up to " + seconds_text(HttpAccess::kMaxLoginDelay) + ")");
    }
    ex->held = http::Answer{
        401,
        login_page(password.empty() ? "Type the password." : "Wrong password; try again."),
        kHtml,
        {{"Cache-Control", "no-store"}}};
  }
  ex->deadline = Clock::now() + result.delay;
  if (result.delay.count() > 0 && waiting_.suspend(ex, 0, ex->deadline)) return MHD_YES;
  return queue(c, *ex->held);
}

int HttpOutput::serve_logout(const ExchangePtr& ex) {
  access_.logout(http::cookie(ex->connection, HttpAccess::kCookie));
  return queue(ex->connection, 303, "", "text/plain",
               {{"Location", "/login"}, {"Set-Cookie", access_.set_cookie("")}});
}

}  // namespace yolo::daemon
