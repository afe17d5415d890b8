// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstddef>

namespace yolo::daemon {

// Bounds of the HTTP server that are not settings.
struct HttpLimits {
  // A connection that sends nothing and takes nothing for this long is closed (a slow client,
  // a viewer that stopped reading, an idle kept-alive connection). Whole seconds.
  std::chrono::seconds idle_timeout{3};
  // A request (TLS handshake, request line, headers and body) not received whole within this
  // of the connection's start (or the end of its previous request) is cut off, however slowly
  // it trickles in ...
  std::chrono::milliseconds request_deadline{10000};
  // ... or within this while more than three quarters of http.max_clients are in use.
  std::chrono::milliseconds busy_request_deadline{2000};
  // A stream client that takes nothing for this long is dropped. Whole seconds.
  std::chrono::seconds stream_write_timeout{2};
  // An MJPEG viewer with no new frame for this long gets the last one again, which finds
  // viewers that left while the camera was lost (nothing else is sent to them then).
  std::chrono::milliseconds viewer_check{5000};
  // Largest request body accepted (the API's JSON and the login form are a few bytes).
  std::size_t max_body = 16 * 1024;
  // Memory for one connection's request line and headers: a request line over about 8 KiB gets
  // 414, larger headers 431. It is most of what an idle connection costs (about 8 KiB each).
  std::size_t connection_memory = 8 * 1024;
  // How long an unanswered bind is retried after (the port in use by another program).
  std::chrono::milliseconds bind_retry{5000};
  // How long GET /snapshot.jpg waits for a frame when it has none fresh.
  std::chrono::milliseconds snapshot_wait{5000};
  // How long the API waits for the control loop (a reload loads and checks the config).
  std::chrono::milliseconds control_timeout{10000};
};

}  // namespace yolo::daemon
