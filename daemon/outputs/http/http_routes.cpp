// SPDX-License-Identifier: Apache-2.0
// Requests: the access handler, the routes, the login, the snapshot, the events with their files,
// the counts and the control API.
#include <arpa/inet.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "daemon/core/event_media.h"
#include "daemon/outputs/http/http_internal.h"
#include "daemon/outputs/http/web_assets.h"
#include "text/time_format.h"

namespace yolo::daemon {

using http::Clock;
using http::kNever;
using http::queue;
using http::queue_error;

namespace {

// A snapshot younger than this is served as it is; an older one waits for the next frame.
constexpr auto kSnapshotFresh = std::chrono::seconds(1);

constexpr const char* kJson = "application/json";

// GET /api/events gives this many events unless asked for fewer or more (up to kMaxEventPage).
constexpr std::int64_t kEventPage = 100;
constexpr std::int64_t kMaxEventPage = 1000;
// An event's files never change once written: a browser may keep them this long.
constexpr const char* kMediaCache = "private, max-age=86400";

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

// What each path answers to. "{id}" in a path stands for an event id: digits only, at most 18
// (any int64), so nothing a client sends but a number reaches a file name.
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
    {"/api/events", "GET"},
    {"/api/events/{id}/snapshot.jpg", "GET"},
    {"/api/events/{id}/crop.jpg", "GET"},
    {"/api/events/{id}/clip.avi", "GET"},
    {"/api/counts", "GET"},
    {"/metrics", "GET"},
    {"/login", "GET POST"},
    {"/logout", "POST"},
    {"/api/precision", "POST"},
    {"/api/reload", "POST"},
    {"/api/counts/reset", "POST"},
};
constexpr std::string_view kId = "{id}";

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

// The route of `path`, and the id its "{id}" stood for.
struct Match {
  const Route* route = nullptr;
  std::int64_t id = 0;
};
Match route_of(std::string_view path) {
  for (const Route& r : kRoutes) {
    const std::size_t at = r.path.find(kId);
    if (at == std::string_view::npos) {
      if (r.path == path) return {&r, 0};
      continue;
    }
    const std::string_view before = r.path.substr(0, at);
    const std::string_view after = r.path.substr(at + kId.size());
    if (path.size() <= before.size() + after.size() || !path.starts_with(before) ||
        !path.ends_with(after)) {
      continue;
    }
    const auto id =
        http::whole_number(path.substr(before.size(), path.size() - before.size() - after.size()));
    if (id) return {&r, *id};
  }
  return {};
}

// What a 404 lists: every route a client may ask for, by method, from the table.
std::string routes_text() {
  std::string text;
  for (const std::string_view method : {"GET", "POST"}) {
    text += text.empty() ? "" : "; ";
    text += method;
    bool first = true;
    for (const Route& r : kRoutes) {
      if (r.path == "/index.html" || r.path == "/login" || r.path == "/logout" ||
          !allows(r, method)) {
        continue;
      }
      text += (first ? " " : ", ") + std::string(r.path);
      first = false;
    }
  }
  return text;
}

bool listed(const std::vector<tracking::ObjectEventKind>& kinds, tracking::ObjectEventKind kind) {
  return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

// The names of a scene's zones and lines, for a message.
std::string place_names(const SceneState& scene) {
  std::string names;
  for (const auto& z : scene.zones) names += (names.empty() ? "" : ", ") + ("zone " + z.name);
  for (const auto& l : scene.lines) names += (names.empty() ? "" : ", ") + ("line " + l.name);
  return names.empty() ? "none is configured (zones:, lines:)" : names;
}

bool has_place(const SceneState& scene, std::string_view name) {
  return std::any_of(scene.zones.begin(), scene.zones.end(),
                     [&](const auto& z) { return z.name == name; }) ||
         std::any_of(scene.lines.begin(), scene.lines.end(),
                     [&](const auto& l) { return l.name == name; });
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

std::optional<std::int64_t> whole_number(std::string_view text) {
  // Ids fit in 18 digits (any int64 below 10^18): a longer one is no id, not an overflow.
  if (text.empty() || text.size() > 18) return std::nullopt;
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

nlohmann::json event_json(const tracking::ObjectEvent& e, const std::filesystem::path& state_dir,
                          const ExpectedMedia* expected) {
  nlohmann::json j = tracking::to_json(e);
  const std::string base = "/api/events/" + std::to_string(e.id) + "/";
  const EventMedia media = state_dir.empty() ? EventMedia{} : event_media(state_dir, e.id);
  const auto link = [&](const char* key, const std::filesystem::path& file, bool made,
                        const char* name) {
    std::error_code ignored;
    const bool there = !file.empty() && std::filesystem::is_regular_file(file, ignored);
    j[key] = there || (made && !state_dir.empty()) ? nlohmann::json(base + name) : nullptr;
  };
  const bool snapshot = expected && listed(expected->snapshots, e.kind);
  link("snapshot", media.snapshot, snapshot, "snapshot.jpg");
  link("crop", media.crop, snapshot && expected->crop, "crop.jpg");
  link("clip", media.clip, expected && listed(expected->clips, e.kind), "clip.avi");
  return j;
}

nlohmann::json counts_json(const SceneState& scene, bool hours) {
  const auto tallies = [](const std::map<std::string, tracking::Tally>& by_class) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [label, t] : by_class) j[label] = {{"in", t.in}, {"out", t.out}};
    return j;
  };
  const auto place = [&](const std::string& name, bool line) {
    nlohmann::json j = {{"name", name}, {"kind", line ? "line" : "zone"}};
    const auto it = std::find_if(scene.counts.places.begin(), scene.counts.places.end(),
                                 [&](const auto& p) { return p.name == name && p.line == line; });
    tracking::Tally all;
    if (it != scene.counts.places.end()) {
      for (const auto& [label, t] : it->total) {
        all.in += t.in;
        all.out += t.out;
      }
      j["since"] = text::iso8601_utc(it->since);
      j["total"] = tallies(it->total);
      if (hours) {
        nlohmann::json by_hour = nlohmann::json::object();
        for (const auto& [hour, t] : it->hours) by_hour[hour] = tallies(t);
        j["hours"] = std::move(by_hour);
      }
    } else {
      j["total"] = nlohmann::json::object();
      if (hours) j["hours"] = nlohmann::json::object();
    }
    j["all"] = {{"in", all.in}, {"out", all.out}};
    if (!line) {
      const auto o = scene.occupancy.find(name);
      j["occupancy"] = o == scene.occupancy.end() ? 0 : o->second;
    }
    return j;
  };
  nlohmann::json places = nlohmann::json::array();
  for (const auto& z : scene.zones) places.push_back(place(z.name, false));
  for (const auto& l : scene.lines) places.push_back(place(l.name, true));
  return {{"camera", scene.camera}, {"version", scene.version}, {"places", std::move(places)}};
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
  const Match match = route_of(ex->path);
  const Route* route = match.route;
  if (!route) {
    return queue_error(c, 404,
                       "nothing at " + ex->path + "; the page is /, and this server answers " +
                           routes_text() + " ({id}: an event's id, digits only)");
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
    nlohmann::json j = to_json(*status);
    if (const int tracks = active_tracks_.load(); tracks >= 0 && !j.contains("tracking")) {
      j["tracking"] = {{"active_tracks", tracks},
                       {"events", backend_.object_events ? backend_.object_events->last_id() : 0}};
    }
    return queue(c, 200, j.dump() + "\n", kJson, {{"Cache-Control", "no-store"}});
  }
  if (ex->path == "/stream.mjpg") return serve_stream(ex, false);
  if (ex->path == "/api/detections") return serve_stream(ex, true);
  if (ex->path == "/api/events") return serve_events(ex);
  if (ex->path == "/api/counts") return serve_counts(ex);
  if (route->path.find(kId) != std::string_view::npos) return serve_media(ex, match.id);
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

int HttpServer::serve_events(const std::shared_ptr<Exchange>& ex) {
  MHD_Connection* c = ex->connection;
  const auto argument = [&](const char* name) -> std::optional<std::string> {
    const char* value = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, name);
    if (!value) return std::nullopt;
    return std::string(value);
  };
  std::int64_t since = 0;
  std::int64_t limit = kEventPage;
  if (const auto text = argument("since")) {
    const auto value = http::whole_number(*text);
    if (!value) {
      return queue_error(c, 400,
                         "since=" + *text +
                             " is not an event id: send the id of the last event you have, a "
                             "whole number (0 for the oldest kept), e.g. /api/events?since=120");
    }
    since = *value;
  }
  if (const auto text = argument("limit")) {
    const auto value = http::whole_number(*text);
    if (!value || *value < 1 || *value > kMaxEventPage) {
      return queue_error(c, 400,
                         "limit=" + *text + " is not a page size: send a whole number from 1 to " +
                             std::to_string(kMaxEventPage) + " (" + std::to_string(kEventPage) +
                             " when left out)");
    }
    limit = *value;
  }
  EventLog::Page page;
  if (backend_.object_events) {
    page = backend_.object_events->since(since, static_cast<std::size_t>(limit));
  }
  nlohmann::json events = nlohmann::json::array();
  for (const tracking::ObjectEvent& e : page.events)
    events.push_back(http::event_json(e, state_dir_));
  const std::int64_t last = page.events.empty() ? since : page.events.back().id;
  const nlohmann::json body = {
      {"events", std::move(events)}, {"last_id", last}, {"more", page.more}};
  return queue(c, 200, body.dump() + "\n", kJson, {{"Cache-Control", "no-store"}});
}

int HttpServer::serve_media(const std::shared_ptr<Exchange>& ex, std::int64_t id) {
  MHD_Connection* c = ex->connection;
  // The file is named from the id alone (a number): the client's path never reaches the disk.
  const EventMedia media = event_media(state_dir_, id);
  struct Kind {
    std::string_view suffix;
    const std::filesystem::path* file;
    const char* type;
    const char* what;
  };
  const Kind kinds[] = {{"/snapshot.jpg", &media.snapshot, "image/jpeg", "snapshot"},
                        {"/crop.jpg", &media.crop, "image/jpeg", "crop"},
                        {"/clip.avi", &media.clip, "video/x-msvideo", "clip"}};
  const Kind* kind = nullptr;
  for (const Kind& k : kinds) {
    if (ex->path.ends_with(k.suffix)) kind = &k;
  }
  const auto missing = [&] {
    return queue_error(c, 404,
                       "event " + std::to_string(id) + " has no " + kind->what +
                           ": none was saved for it (events.snapshots, events.crop, "
                           "events.clips), or the disk budget (events.max_mb, events.max_days) "
                           "has removed it since");
  };
  if (state_dir_.empty()) return missing();
  const int fd = open(kind->file->c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return missing();
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return missing();
  }
  // Sent from the open file: removed by the budget meanwhile, it is still read whole.
  MHD_Response* response = MHD_create_response_from_fd(static_cast<std::uint64_t>(st.st_size), fd);
  if (!response) {
    close(fd);
    return MHD_NO;
  }
  MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, kind->type);
  MHD_add_response_header(response, "X-Content-Type-Options", "nosniff");
  MHD_add_response_header(response, "Cache-Control", kMediaCache);
  const std::string disposition = "inline; filename=\"event-" + std::to_string(id) + "-" +
                                  std::string(kind->suffix.substr(1)) + "\"";
  MHD_add_response_header(response, "Content-Disposition", disposition.c_str());
  const MHD_Result result = MHD_queue_response(c, MHD_HTTP_OK, response);
  MHD_destroy_response(response);
  return result;
}

int HttpServer::serve_counts(const std::shared_ptr<Exchange>& ex) {
  std::shared_ptr<const SceneState> scene;
  {
    std::lock_guard lock(mutex_);
    scene = scene_;
  }
  nlohmann::json body;
  if (scene) {
    body = http::counts_json(*scene, true);
    body["tracking"] = true;
  } else {
    body = {{"tracking", false}, {"places", nlohmann::json::array()}};
  }
  body["hours_are"] =
      "local time: each key of \"hours\" is the start of a local hour with the UTC offset then "
      "(e.g. 2026-11-28T08:00+01:00); \"since\" is UTC";
  return queue(ex->connection, 200, body.dump() + "\n", kJson, {{"Cache-Control", "no-store"}});
}

std::optional<int> HttpServer::check_reset(const std::shared_ptr<Exchange>& ex) {
  MHD_Connection* c = ex->connection;
  const nlohmann::json body = nlohmann::json::parse(ex->body, nullptr, false);
  const auto place = body.is_object() ? body.find("place") : body.end();
  if (body.is_discarded() || !body.is_object() || place == body.end() || !place->is_string() ||
      place->get<std::string>().empty()) {
    return queue_error(c, 400,
                       "the body must be JSON like {\"place\": \"NAME\"}: the zone's or line's "
                       "name (GET /api/counts lists them)");
  }
  const auto camera = body.find("camera");
  if (camera != body.end() && !camera->is_string()) {
    return queue_error(c, 400, "\"camera\" must be a camera's name, e.g. \"main\"");
  }
  std::shared_ptr<const SceneState> scene;
  {
    std::lock_guard lock(mutex_);
    scene = scene_;
  }
  ex->reset_place = place->get<std::string>();
  ex->reset_camera = camera != body.end() ? camera->get<std::string>()
                     : scene              ? scene->camera
                                          : std::string(config::kMainCamera);
  if (!scene) {
    return queue_error(c, 404,
                       "no zones or lines to reset: tracking is off (tracking.enabled) "
                       "or no frame has been processed yet");
  }
  if (ex->reset_camera != scene->camera || !has_place(*scene, ex->reset_place)) {
    return queue_error(c, 404,
                       "camera " + ex->reset_camera + " has no zone or line named '" +
                           ex->reset_place + "'; camera " + scene->camera +
                           " has: " + place_names(*scene));
  }
  if (!backend_.reset_counts) {
    return queue_error(c, 503, "counts cannot be reset in this daemon (no tracking stage)");
  }
  return std::nullopt;
}

int HttpServer::serve_control(const std::shared_ptr<Exchange>& ex) {
  MHD_Connection* c = ex->connection;
  const bool reset = ex->path == "/api/counts/reset";
  if (!ex->queued) {
    if (reset) {
      if (const auto refused = check_reset(ex)) return *refused;
    } else if (ex->path == "/api/precision") {
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
    if (!reset) {
      ex->request.origin = ex->method + " " + ex->path + " from " + address_text(ex->address);
    }
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
  if (reset) {
    if (!done || !ex->reset) return queue_error(c, 503, "the daemon is stopping");
    if (!*ex->reset) {
      // Gone in a reload since the check.
      return queue_error(c, 404,
                         "camera " + ex->reset_camera + " has no zone or line named '" +
                             ex->reset_place + "' (any more); GET /api/counts lists them");
    }
    const nlohmann::json body = {
        {"ok", true},
        {"camera", ex->reset_camera},
        {"place", ex->reset_place},
        {"message", "the counts of " + ex->reset_place + " start again from now"}};
    return queue(c, 200, body.dump() + "\n", kJson);
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
    std::optional<bool> reset;
    if (!stopped()) {
      if (ex->path == "/api/counts/reset") {
        reset = backend_.reset_counts(ex->reset_camera, ex->reset_place);
        if (*reset) {
          events_.log().info("http: the counts of " + ex->reset_place + " (camera " +
                             ex->reset_camera + ") were reset by " + ex->method + " " + ex->path +
                             " from " + address_text(ex->address));
        }
      } else {
        reply = backend_.control(ex->request, limits_.control_timeout);
      }
    }
    {
      std::lock_guard lock(jobs_mutex_);
      ex->reply = std::move(reply);
      ex->reset = reset;
      ex->done = true;
    }
    resume(ex);
  }
}

}  // namespace yolo::daemon
