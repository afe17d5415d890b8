// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/http/http_event_stream.h"

#include <algorithm>
#include <cstring>

#include "daemon/core/label_tracker.h"
#include "daemon/outputs/http/http_json.h"
#include "text/format.h"
#include "text/time_format.h"
#include "vision/detection_json.h"

namespace yolo::daemon::http {

namespace {

// A stream with nothing to say sends a comment this often, which also finds clients that left.
constexpr auto kKeepAlive = std::chrono::seconds(10);
// Object events a client takes from the event log per turn (more follow on the next).
constexpr std::size_t kEventsPerTurn = 64;

nlohmann::json detections_json(const FrameResult& r) {
  nlohmann::json list = nlohmann::json::array();
  for (const vision::Detection& d : r.detections) {
    list.push_back(vision::detection_json(d, label_of(r, d.class_id)));
  }
  nlohmann::json j = {{"camera", r.camera},
                      {"frame", r.index},
                      {"time", text::iso8601_utc(r.wall)},
                      {"latency_ms",
                       {{"inference", text::rounded(r.times.inference_ms, 2)},
                        {"end_to_end", text::rounded(r.times.end_to_end_ms, 2)}}},
                      {"detections", std::move(list)}};
  if (r.model) {
    j["model"] = r.model->name;
    j["precision"] = runtime::precision_name(r.model->precision);
  }
  if (r.motion) {
    nlohmann::json regions = nlohmann::json::array();
    for (const cv::Rect& c : r.motion->regions) regions.push_back({c.x, c.y, c.width, c.height});
    j["motion"] = {{"pass", detector::pass_name(r.motion->pass)},
                   {"regions", std::move(regions)},
                   {"ms", text::rounded(r.motion->ms, 2)}};
  }
  if (r.frame && !r.frame->empty()) j["size"] = {r.frame->cols, r.frame->rows};
  if (r.scene) {
    nlohmann::json tracks = nlohmann::json::array();
    for (const tracking::Track& t : r.tracks) {
      tracks.push_back({{"id", t.id},
                        {"class", t.class_id},
                        {"label", label_of(r, t.class_id)},
                        {"score", text::rounded(t.score, 3)},
                        {"seen", t.seen},
                        {"box",
                         {text::rounded(t.box.x1, 1), text::rounded(t.box.y1, 1),
                          text::rounded(t.box.x2, 1), text::rounded(t.box.y2, 1)}}});
    }
    j["tracks"] = std::move(tracks);
  }
  return j;
}

// A server-sent event: its name, its id (none when 0) and its JSON.
std::string sse(std::string_view name, std::int64_t id, const nlohmann::json& data) {
  std::string text = id > 0 ? "id: " + std::to_string(id) + "\n" : std::string();
  text += "event: ";
  text += name;
  text += "\ndata: " + data.dump() + "\n\n";
  return text;
}

}  // namespace

EventStream::EventStream(WaitingExchanges& waiting, const EventLog* object_events,
                         std::filesystem::path state_dir, std::chrono::seconds write_timeout)
    : waiting_(waiting),
      object_events_(object_events),
      state_dir_(std::move(state_dir)),
      write_timeout_(write_timeout) {}

void EventStream::configure(const config::EventsConfig& events) {
  std::lock_guard lock(mutex_);
  events_ = events;
}

int EventStream::serve(const std::shared_ptr<Exchange>& ex) {
  ex->place = std::make_shared<ClientPlace>(clients_);
  ex->sent = messages_.last();
  if (object_events_) {
    // A client that comes back says the last event it had (EventSource does so by itself): it
    // gets what it missed that the log still keeps; a new one, what happens from now on.
    const std::int64_t last = object_events_->last_id();
    const std::string resume_from = request_header(ex->connection, "Last-Event-ID");
    ex->event_id = last;
    if (const auto id = resume_from.empty() ? std::nullopt : whole_number(resume_from);
        id && *id <= last) {
      ex->event_id = *id;
    }
  }
  return queue_stream(ex->connection, "text/event-stream", {{"X-Accel-Buffering", "no"}},
                      write_timeout_,
                      [this, ex](char* buffer, std::size_t max) { return body(ex, buffer, max); });
}

void EventStream::take(const FrameResult& result) {
  if (clients_.load() == 0) return;
  if (const auto& scene = result.scene) {
    std::lock_guard lock(mutex_);
    if (scene != counts_scene_ || scene->version != counts_version_) {
      counts_message_ =
          std::make_shared<const std::string>(sse("counts", 0, counts_json(*scene, false)));
      counts_scene_ = scene;
      counts_version_ = scene->version;
    }
  }
  // No id: the stream's ids are the object events', which a client resumes from.
  if (!result.frameless) {
    messages_.push(
        std::make_shared<const std::string>(sse("detections", 0, detections_json(result))));
  }
  waiting_.resume(kOnEvent);
}

long EventStream::body(const std::shared_ptr<Exchange>& ex, char* buffer, std::size_t max) {
  if (ex->at >= ex->tail.size()) {
    ex->tail.clear();
    ex->at = 0;
    if (ex->hello) {
      ex->hello = false;
      // Browsers reconnect after this many milliseconds when the stream breaks.
      ex->tail = "retry: 2000\n\n";
    } else {
      const auto lock = waiting_.lock();
      if (waiting_.closing(lock)) return kEndOfStream;
      next(ex);
      const auto now = Clock::now();
      if (ex->tail.empty() && now - ex->quiet_since >= kKeepAlive) ex->tail = ": keep-alive\n\n";
      if (ex->tail.empty()) {
        waiting_.suspend(lock, ex, kOnEvent, ex->quiet_since + kKeepAlive);
        return 0;
      }
      ex->quiet_since = now;
    }
  }
  const std::size_t n = std::min(max, ex->tail.size() - ex->at);
  std::memcpy(buffer, ex->tail.data() + ex->at, n);
  ex->at += n;
  return static_cast<long>(n);
}

void EventStream::next(const std::shared_ptr<Exchange>& ex) {
  // Object events from the log, by id: none is lost to a client that reads slower than frames
  // come, as frames are.
  if (object_events_) {
    const EventLog::Page page = object_events_->since(ex->event_id, kEventsPerTurn);
    if (!page.events.empty()) {
      config::EventsConfig events;
      {
        std::lock_guard lock(mutex_);
        events = events_;
      }
      for (const tracking::ObjectEvent& e : page.events) {
        ex->tail += sse("object", e.id, event_json(e, state_dir_, &events));
      }
      ex->event_id = page.events.back().id;
    }
  }
  {
    // The counts when they changed since this client's last (only the newest matters).
    std::lock_guard lock(mutex_);
    if (counts_message_ && counts_message_ != ex->counts_sent) {
      ex->tail += *counts_message_;
      ex->counts_sent = counts_message_;
    }
  }
  for (const auto& [number, text] : messages_.wait_after(ex->sent, std::chrono::milliseconds(0))) {
    ex->sent = number;
    ex->tail += *text;
  }
}

}  // namespace yolo::daemon::http
