// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "daemon/core/events.h"
#include "daemon/core/label_tracker.h"
#include "daemon/core/queued_output.h"
#include "os/unique_fd.h"

namespace yolo::daemon {

// Fixed bounds of the webhook, which tests shorten. Taken at construction.
struct WebhookOptions {
  // Longest wait between two retries, whatever webhook.backoff_s doubles to.
  std::chrono::milliseconds backoff_max{60'000};
  // How long stop() waits for the thread, which it first cuts out of a request in flight.
  std::chrono::milliseconds stop_limit{1000};
  // The "host" of every event; empty means this machine's hostname.
  std::string host;
};

// What the webhook's thread reports; WebhookOutput::status() words it.
struct WebhookSnapshot {
  bool enabled = false;
  // The URL's scheme, host and port: its path and query may hold a token, never shown.
  std::string origin;
  std::int64_t sent = 0;
  std::int64_t failed = 0;
  // Events given up at stop or while turned off (the queue counts those it dropped itself).
  std::int64_t dropped = 0;
  // Why the last attempt failed, and when; cleared by an event that gets through.
  std::string problem;
  std::string problem_time;
};

// The webhook (docs/webhook.md): each debounced detection event (a label appears, its count
// changes, it is gone; the debounce is MQTT's, LabelTracker) and each tracked-object event of a
// kind events.webhook names POSTed as one JSON object to webhook.url, http:// or https://.
// publish() debounces on the calling thread (a map update under a short lock) and queues the event;
// a thread of its own sends them in order, retrying a failed attempt (no answer, or 408, 429, 5xx)
// webhook.retries times with a doubling backoff, so a dead, slow or failing receiver never stalls
// inference or the other outputs: events wait in a queue of webhook.queue, the oldest dropped and
// counted beyond it. stop() cuts a request in flight.
class WebhookOutput : public QueuedOutput<nlohmann::json, config::WebhookConfig, WebhookSnapshot> {
 public:
  explicit WebhookOutput(Events& events, WebhookOptions options = {});
  ~WebhookOutput() override;

  // Takes webhook.* and events.webhook: a new URL or timeout applies from the next attempt, a new
  // queue bound at once (dropping the oldest beyond it), the debounce and the kinds of object
  // event from the next frame.
  void configure(const config::Config& config) override;
  void publish(std::shared_ptr<const FrameResult> result) override;
  // {"ok", "enabled"} and, when enabled, "url" (scheme, host and port only), "sent", "failed",
  // "dropped", "queued", and "warning" and "last_error" {"time", "message"} after a failed
  // attempt, until an event gets through.
  nlohmann::json status() const override;
  // yolo_edge_webhook_events_total{result="sent|failed|dropped"} and yolo_edge_webhook_queued.
  void metrics(MetricsSink& sink) const override;
  // Cuts a request in flight and joins the thread; events still queued are dropped (counted).
  bool stop() override;

 private:
  // The client and the sending, owned by the thread (webhook.cpp).
  class Sender;

  void run() override;
  // Labels that expired without a frame (the source stalled) as events.
  void expire(std::chrono::steady_clock::time_point now);
  // Queues the events of `changes`; `frame` null when they came from the clock.
  void queue_events(const std::vector<LabelChange>& changes, const FrameResult* frame);
  // Queues the tracked-object events of `frame` whose kind events.webhook names.
  void queue_object_events(const FrameResult& frame);

  Events& events_;
  const WebhookOptions options_;
  const std::string host_;
  // Read by publish() so that nothing is debounced while the webhook is off.
  std::atomic<bool> enabled_{false};
  // The kinds of tracked-object event POSTed (events.webhook), one bit per kind.
  std::atomic<unsigned> object_kinds_{0};

  // The debounce, fed by publish() and expired by the thread.
  std::mutex tracker_mutex_;
  CameraLabels tracker_{CameraLabels::Clock::duration::zero()};
  std::int64_t last_index_ = -1;
  std::string last_model_;

  // A duplicate of the socket of the request in flight, so that stop() can shut it down
  // (connecting, sending or waiting for the answer), and whether stop() was called.
  std::mutex in_flight_mutex_;
  os::UniqueFd in_flight_;
  bool stopping_ = false;
};

}  // namespace yolo::daemon
