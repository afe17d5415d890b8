// SPDX-License-Identifier: Apache-2.0
// The live view's routes: what each path answers to, who may ask, and what answers it. The table
// is http_routes.cpp's; docs/live-view.md lists the same.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace yolo::daemon {
class HttpOutput;
}

namespace yolo::daemon::http {

class Exchange;

// Who may ask for a route (HttpAccess says who has which grant).
enum class Access {
  // Anyone: the login itself.
  kPublic,
  // Viewing; a browser without a credential gets the login form.
  kPage,
  // Viewing; without a credential, 401 offering Bearer and Basic (players, scripts).
  kView,
  // Changing the daemon: a session, or the password or http.token as a bearer token.
  kControl,
  // A Prometheus scrape: viewing, or from an address in http.metrics_allow.
  kMetrics,
};

struct Route {
  // "{id}" stands for an event id: digits only, at most 18 (any int64), so nothing a client
  // sends but a number reaches a file name; "{camera}" for a camera's name (letters, digits, _
  // and -, as the config allows).
  std::string_view path;
  // Space-separated; HEAD is answered wherever GET is.
  std::string_view methods;
  Access access;
  int (HttpOutput::*handler)(const std::shared_ptr<Exchange>& ex);
  // Named in a 404's list of what there is (not the login's pages, nor the page's second name).
  bool listed = true;
};

// Every route, in the order a 404 lists them.
std::span<const Route> routes();

// The route of `path` (null: none), and the id its "{id}" stood for.
struct Match {
  const Route* route = nullptr;
  std::int64_t id = 0;
  std::string camera;
};
Match route_of(std::string_view path);

// Whether `method` is one of the route's.
bool allows(const Route& route, std::string_view method);

// What a 404 lists: every listed route, by method ("GET /, /stream.mjpg, ...; POST ...").
std::string routes_text();

}  // namespace yolo::daemon::http
