// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/webhook/webhook_output.h"

#include <fcntl.h>
#include <httplib.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "config/http_url.h"
#include "daemon/base/host_name.h"
#include "daemon/base/version.h"
#include "text/time_format.h"
#include "vision/detection_json.h"

namespace yolo::daemon {

namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

// The longest the thread sleeps with nothing queued: the clock it expires labels on.
constexpr auto kIdle = std::chrono::seconds(1);

std::chrono::milliseconds milliseconds(double seconds) {
  return std::chrono::milliseconds(std::llround(seconds * 1000.0));
}

// "appeared", "changed" or "gone".
const char* event_name(const LabelChange& c) {
  if (c.from == 0) return "appeared";
  return c.to == 0 ? "gone" : "changed";
}

// The status of an answer the receiver may give a second time: it timed out, asks to slow down,
// or failed on its side.
bool worth_retrying(int status) {
  return status == 408 || status == 429 || status >= 500;
}

}  // namespace

// The client and the counts, owned by the thread.
class WebhookOutput::Sender {
 public:
  explicit Sender(WebhookOutput& owner) : owner_(owner) {}

  bool enabled() const { return client_ != nullptr; }

  void apply(const config::WebhookConfig& settings) {
    const bool same_client =
        settings.url == settings_.url && settings.timeout_s == settings_.timeout_s;
    settings_ = settings;
    if (same_client && (client_ || settings.url.empty())) return;
    std::lock_guard lock(owner_.in_flight_mutex_);
    client_.reset();
    url_ = {};
    problem_.clear();
    if (settings.url.empty()) return;
    // Checked by the config's loader: a URL it refused never gets here.
    url_ = config::parse_http_url(settings.url, nullptr).value_or(config::HttpUrl{});
    client_ = std::make_unique<httplib::Client>(url_.origin());
    const auto timeout = milliseconds(settings.timeout_s);
    client_->set_connection_timeout(timeout);
    client_->set_read_timeout(timeout);
    client_->set_write_timeout(timeout);
    client_->enable_server_certificate_verification(true);
    client_->set_default_headers({{"User-Agent", "yolo-edge/" + std::string(version())}});
    // Runs on this thread inside Post(), before the connection is made: stop() shuts a
    // duplicate of the socket down, which ends a connect, handshake or wait at once.
    client_->set_socket_options([this](int socket) {
      std::lock_guard lock(owner_.in_flight_mutex_);
      owner_.in_flight_ = os::UniqueFd(fcntl(socket, F_DUPFD_CLOEXEC, 0));
      if (owner_.stopping_) shutdown(socket, SHUT_RDWR);
    });
  }

  // Sends `event`, retrying as webhook.retries and backoff_s say; counts it sent, failed or (when
  // stopped or turned off meanwhile) dropped.
  void deliver(const json& event) {
    const std::string body = event.dump(-1, ' ', false, json::error_handler_t::replace);
    for (int attempt = 0;; ++attempt) {
      if (!enabled()) {
        ++dropped_;
        return;
      }
      const std::optional<std::string> problem = post(body);
      if (!problem) {
        ++sent_;
        problem_.clear();
        said_ = false;
        return;
      }
      if (stopping()) {
        ++dropped_;
        return;
      }
      note(*problem);
      if (!retry_ || attempt >= settings_.retries) {
        ++failed_;
        return;
      }
      const auto backoff = std::min<std::chrono::milliseconds>(
          milliseconds(settings_.backoff_s * std::pow(2.0, attempt)), owner_.options_.backoff_max);
      if (!pause(Clock::now() + backoff)) {
        ++dropped_;
        return;
      }
    }
  }

  // Sleeps until `until`, taking new settings meanwhile; false when stopped first.
  bool pause(Clock::time_point until) {
    for (;;) {
      report();
      if (owner_.queue().closed()) return false;
      const auto left = until - Clock::now();
      if (left <= Clock::duration::zero()) return true;
      sleep(std::chrono::ceil<std::chrono::milliseconds>(left));
      if (auto next = owner_.take_settings()) apply(*next);
    }
  }

  // Sleeps up to `wait`, or until woken (an event queued, new settings, stop).
  void sleep(std::chrono::milliseconds wait) const {
    pollfd fd{owner_.wake_fd().fd(), POLLIN, 0};
    if (poll(&fd, 1, static_cast<int>(std::max<std::int64_t>(wait.count(), 0))) > 0) {
      owner_.wake_fd().clear();
    }
  }

  void drop(std::int64_t events) { dropped_ += events; }

  void report() {
    WebhookSnapshot s;
    s.enabled = enabled();
    s.origin = enabled() ? url_.origin() : "";
    s.sent = sent_;
    s.failed = failed_;
    s.dropped = dropped_;
    s.problem = problem_;
    s.problem_time = problem_time_;
    owner_.report(std::move(s));
  }

 private:
  // One attempt: nothing when the receiver took the event (2xx), else what went wrong (and
  // retry_ whether another attempt may do better).
  std::optional<std::string> post(const std::string& body) {
    {
      std::lock_guard lock(owner_.in_flight_mutex_);
      if (owner_.stopping_) {
        retry_ = false;
        return "stopped";
      }
    }
    const httplib::Result result = client_->Post(url_.target, body, "application/json");
    {
      std::lock_guard lock(owner_.in_flight_mutex_);
      owner_.in_flight_ = os::UniqueFd();
    }
    if (!result) {
      retry_ = true;
      return "unreachable (" + httplib::to_string(result.error()) + ")";
    }
    const int status = result->status;
    if (status >= 200 && status < 300) return std::nullopt;
    retry_ = worth_retrying(status);
    std::string problem = "answered " + std::to_string(status);
    if (status >= 300 && status < 400)
      problem += " (a redirect: set webhook.url to where it points)";
    return problem;
  }

  // Whether stop() was called: an attempt it cut is no failure of the receiver's.
  bool stopping() const {
    std::lock_guard lock(owner_.in_flight_mutex_);
    return owner_.stopping_;
  }

  // A failed attempt: the status says it until an event gets through; the log once per outage.
  void note(const std::string& problem) {
    problem_ = problem;
    problem_time_ = text::iso8601_utc(std::chrono::system_clock::now());
    if (said_) return;
    said_ = true;
    owner_.events_.log().warning("webhook " + url_.origin() + " " + problem +
                                 "; events are retried, then counted failed, until it answers");
  }

  WebhookOutput& owner_;
  config::WebhookConfig settings_;
  config::HttpUrl url_;
  std::unique_ptr<httplib::Client> client_;
  std::int64_t sent_ = 0;
  std::int64_t failed_ = 0;
  std::int64_t dropped_ = 0;
  std::string problem_;
  std::string problem_time_;
  // Whether the last failed attempt may do better a second time.
  bool retry_ = false;
  // Whether the current outage was logged.
  bool said_ = false;
};

WebhookOutput::WebhookOutput(Events& events, WebhookOptions options)
    : QueuedOutput("webhook", 100, options.stop_limit),
      events_(events),
      options_(std::move(options)),
      host_(options_.host.empty() ? host_name() : options_.host) {}

WebhookOutput::~WebhookOutput() {
  stop();
}

void WebhookOutput::configure(const config::Config& config) {
  const config::WebhookConfig& webhook = config.webhook;
  queue().set_capacity(static_cast<std::size_t>(webhook.queue));
  {
    std::lock_guard lock(tracker_mutex_);
    tracker_.set_hold(std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(webhook.debounce_s)));
  }
  unsigned kinds = 0;
  for (const tracking::ObjectEventKind kind : config.events.webhook) {
    kinds |= 1u << static_cast<unsigned>(kind);
  }
  object_kinds_ = kinds;
  enabled_ = !webhook.url.empty();
  hand_over(webhook);
}

void WebhookOutput::publish(std::shared_ptr<const FrameResult> result) {
  if (!enabled_ || !result) return;
  const auto now = Clock::now();
  std::lock_guard lock(tracker_mutex_);
  if (!result->frameless) {
    last_index_ = result->index;
    if (result->model) last_model_ = result->model->name;
    const std::vector<LabelChange> changes =
        tracker_.add(result->camera, label_counts(*result), now);
    if (!changes.empty()) queue_events(changes, result.get());
  }
  if (!result->object_events.empty()) queue_object_events(*result);
}

void WebhookOutput::queue_object_events(const FrameResult& frame) {
  const unsigned kinds = object_kinds_;
  for (const tracking::ObjectEvent& e : frame.object_events) {
    if (!(kinds & (1u << static_cast<unsigned>(e.kind)))) continue;
    // The envelope first, then the event's own JSON (its "time" and "frame" are the event's).
    json body = {{"event", "object"}, {"host", host_}, {"model", last_model_}};
    body.update(tracking::to_json(e));
    push(std::move(body));
  }
}

void WebhookOutput::expire(Clock::time_point now) {
  std::lock_guard lock(tracker_mutex_);
  const std::vector<LabelChange> changes = tracker_.expire_if_stalled(now);
  if (!changes.empty()) queue_events(changes, nullptr);
}

void WebhookOutput::queue_events(const std::vector<LabelChange>& changes,
                                 const FrameResult* frame) {
  const auto time = frame ? frame->wall : std::chrono::system_clock::now();
  for (const LabelChange& c : changes) {
    json detections = json::array();
    if (frame) {
      for (const auto& d : frame->detections) {
        const std::string label = label_of(*frame, d.class_id);
        if (label == c.label) detections.push_back(vision::detection_json(d, label));
      }
    }
    push({{"event", event_name(c)},
          {"label", c.label},
          {"count", c.to},
          {"previous", c.from},
          {"time", text::iso8601_utc(time)},
          {"host", host_},
          {"frame", last_index_},
          {"model", last_model_},
          {"detections", std::move(detections)}});
  }
}

void WebhookOutput::run() {
  Sender sender(*this);
  for (;;) {
    if (auto next = take_settings()) sender.apply(*next);
    const auto now = Clock::now();
    expire(now);
    sender.report();
    if (queue().closed()) break;
    if (std::optional<json> event = queue().pop(std::chrono::milliseconds(0))) {
      sender.deliver(*event);
      continue;
    }
    auto wake_at = now + kIdle;
    {
      std::lock_guard lock(tracker_mutex_);
      if (const auto expiry = tracker_.next_stalled_expiry()) wake_at = std::min(wake_at, *expiry);
    }
    sender.sleep(std::chrono::ceil<std::chrono::milliseconds>(wake_at - now));
  }
  // Stopped: what is still queued is not sent.
  while (queue().pop(std::chrono::milliseconds(0))) sender.drop(1);
  sender.report();
}

// The queue's figures are read here, not from the snapshot: they change while the thread waits
// on a receiver.
nlohmann::json WebhookOutput::status() const {
  WebhookSnapshot s = snapshot();
  s.dropped += queue().dropped();
  const std::size_t queued = queue().size();
  if (!s.enabled) return {{"ok", true}, {"enabled", false}};
  json j = {{"ok", s.problem.empty()}, {"enabled", true},      {"url", s.origin}, {"sent", s.sent},
            {"failed", s.failed},      {"dropped", s.dropped}, {"queued", queued}};
  if (!s.problem.empty()) {
    j["warning"] = "webhook " + s.origin + " " + s.problem + "; " + std::to_string(queued) +
                   " events waiting (webhook.queue bounds them, the oldest dropped beyond)";
    j["last_error"] = {{"time", s.problem_time}, {"message", s.problem}};
  }
  return j;
}

void WebhookOutput::metrics(MetricsSink& sink) const {
  WebhookSnapshot s = snapshot();
  s.dropped += queue().dropped();
  const std::string help =
      "Webhook events by result: sent, failed (after every retry) or dropped "
      "(beyond webhook.queue, or queued at stop).";
  sink.follow_counter("yolo_edge_webhook_events_total", help, {{"result", "sent"}},
                      static_cast<double>(s.sent));
  sink.follow_counter("yolo_edge_webhook_events_total", help, {{"result", "failed"}},
                      static_cast<double>(s.failed));
  sink.follow_counter("yolo_edge_webhook_events_total", help, {{"result", "dropped"}},
                      static_cast<double>(s.dropped));
  sink.set_gauge("yolo_edge_webhook_queued", "Webhook events waiting to be sent.", {},
                 static_cast<double>(queue().size()));
}

bool WebhookOutput::stop() {
  {
    std::lock_guard lock(in_flight_mutex_);
    stopping_ = true;
    if (in_flight_.valid()) shutdown(in_flight_.get(), SHUT_RDWR);
  }
  return stop_worker();
}

}  // namespace yolo::daemon
