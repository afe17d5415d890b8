// SPDX-License-Identifier: Apache-2.0
// The live streams (MJPEG and server-sent events), the encoder that makes their frames once for
// every client, and the suspended exchanges that wait for a frame, an event, a job or a time.
#include <microhttpd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <deque>
#include <opencv2/imgcodecs.hpp>

#include "daemon/core/annotated_frame.h"
#include "daemon/core/label_tracker.h"
#include "daemon/outputs/http/http_internal.h"
#include "text/format.h"
#include "text/time_format.h"
#include "vision/detection_json.h"

namespace yolo::daemon {

using http::Clock;
using http::kNever;

namespace {

// An event stream with nothing to say sends a comment this often, which also finds clients that
// left.
constexpr auto kEventKeepAlive = std::chrono::seconds(10);
// The encoder runs below inference: under load the stream slows, never the detections.
constexpr int kEncoderNice = 10;
// The timer thread also cuts overdue requests this often.
constexpr auto kSweep = std::chrono::milliseconds(250);
// The kernel's send buffer of a stream's socket.
constexpr int kStreamSocketBuffer = 128 * 1024;
// Bytes handed to the socket per call of a stream's body.
constexpr std::size_t kStreamBlock = 32 * 1024;

constexpr const char* kBoundary = "frame";
// Object events an event stream takes from the event log per turn (more follow on the next).
constexpr std::size_t kEventsPerTurn = 64;

nlohmann::json detections_json(const FrameResult& r) {
  nlohmann::json list = nlohmann::json::array();
  for (const vision::Detection& d : r.detections) {
    list.push_back(vision::detection_json(d, label_of(r, d.class_id)));
  }
  nlohmann::json j = {{"frame", r.index},
                      {"time", text::iso8601_utc(r.wall)},
                      {"latency_ms",
                       {{"inference", text::rounded(r.times.inference_ms, 2)},
                        {"end_to_end", text::rounded(r.times.end_to_end_ms, 2)}}},
                      {"detections", std::move(list)}};
  if (r.model) {
    j["model"] = r.model->name;
    j["precision"] = runtime::precision_name(r.model->precision);
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

int HttpServer::serve_stream(const std::shared_ptr<Exchange>& ex, bool events) {
  MHD_Connection* c = ex->connection;
  const int cap = settings().max_viewers;
  if (viewers_.load() + event_clients_.load() >= cap) {
    ++refused_;
    return http::queue_error(
        c, 503,
        "too many viewers: " + std::to_string(cap) +
            " streams are open (http.max_viewers); close one or raise the setting",
        {{"Retry-After", "10"}});
  }
  ex->place = std::make_shared<http::ClientPlace>(events ? event_clients_ : viewers_);
  ex->sent = events ? events_out_.last() : 0;
  if (events && backend_.object_events) {
    // A client that comes back says the last event it had (EventSource does so by itself): it
    // gets what it missed that the log still keeps; a new one, what happens from now on.
    const std::int64_t last = backend_.object_events->last_id();
    const char* resume_from = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Last-Event-ID");
    ex->event_id = last;
    if (const auto id = resume_from ? http::whole_number(resume_from) : std::nullopt;
        id && *id <= last) {
      ex->event_id = *id;
    }
  }
  if (!events) wake_.notify_all();
  MHD_Response* response = MHD_create_response_from_callback(
      MHD_SIZE_UNKNOWN, kStreamBlock, &HttpCallbacks::body,
      new HttpCallbacks::Body{this, ex, events}, &HttpCallbacks::free_body);
  if (!response) return MHD_NO;
  MHD_add_response_header(
      response, MHD_HTTP_HEADER_CONTENT_TYPE,
      events ? "text/event-stream"
             : (std::string("multipart/x-mixed-replace; boundary=") + kBoundary).c_str());
  MHD_add_response_header(response, "Cache-Control", "no-store");
  MHD_add_response_header(response, "X-Content-Type-Options", "nosniff");
  if (events) {
    MHD_add_response_header(response, "X-Accel-Buffering", "no");
  } else {
    MHD_add_response_header(response, "Pragma", "no-cache");
  }
  // A client that stops reading is dropped after this, and its place is free again. Its socket
  // holds a few frames, not the megabytes the kernel would grow it to: a slow viewer gets fresh
  // frames instead of old ones queued, and one that stopped reading is found within seconds.
  MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT,
                            static_cast<unsigned>(limits_.stream_write_timeout.count()));
  if (const auto* info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD)) {
    const int bytes = kStreamSocketBuffer;
    setsockopt(info->connect_fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes);
  }
  const MHD_Result result = MHD_queue_response(c, MHD_HTTP_OK, response);
  MHD_destroy_response(response);
  return result;
}

long HttpServer::stream_body(const std::shared_ptr<Exchange>& ex, char* buffer, std::size_t max) {
  if (ex->at >= ex->head.size() + (ex->item ? ex->item->size() : 0) + ex->tail.size()) {
    // The last part went out whole: the next frame, or a wait for one.
    std::lock_guard lock(waits_mutex_);
    if (closing_) return MHD_CONTENT_READER_END_OF_STREAM;
    const auto [number, jpeg] = jpegs_.newest();
    const auto now = Clock::now();
    // Without a new frame for a while (a lost camera), the last one again: a connection that
    // only waits is not watched, so a viewer that left would keep its place; a write finds it.
    const bool repeat = jpeg && number == ex->sent && now >= ex->until && ex->until != kNever;
    if (!jpeg || (number <= ex->sent && !repeat)) {
      ex->suspended = true;
      ex->wake = kOnFrame;
      ex->until = now + limits_.viewer_check;
      MHD_suspend_connection(ex->connection);
      waiting_.push_back(ex);
      timers_.notify_all();
      return 0;
    }
    ex->until = kNever;
    ex->sent = number;
    char head[128];
    std::snprintf(head, sizeof head,
                  "--%s\r\nContent-Type: image/jpeg\r\nContent-Length: %zu\r\n\r\n", kBoundary,
                  jpeg->size());
    ex->head = head;
    ex->item = jpeg;
    ex->tail = "\r\n";
    ex->at = 0;
  }
  // Copies from head, frame and tail, in order, as far as `max` goes.
  std::size_t written = 0;
  const std::string_view pieces[] = {ex->head, *ex->item, ex->tail};
  std::size_t offset = ex->at;
  for (const std::string_view piece : pieces) {
    if (offset >= piece.size()) {
      offset -= piece.size();
      continue;
    }
    const std::size_t n = std::min(piece.size() - offset, max - written);
    std::memcpy(buffer + written, piece.data() + offset, n);
    written += n;
    offset = 0;
    if (written == max) break;
  }
  ex->at += written;
  return static_cast<long>(written);
}

long HttpServer::event_body(const std::shared_ptr<Exchange>& ex, char* buffer, std::size_t max) {
  if (ex->at >= ex->tail.size()) {
    ex->tail.clear();
    ex->at = 0;
    if (ex->hello) {
      ex->hello = false;
      // Browsers reconnect after this many milliseconds when the stream breaks.
      ex->tail = "retry: 2000\n\n";
    } else {
      std::lock_guard lock(waits_mutex_);
      if (closing_) return MHD_CONTENT_READER_END_OF_STREAM;
      next_events(ex);
      const auto now = Clock::now();
      if (ex->tail.empty() && now - ex->quiet_since >= kEventKeepAlive)
        ex->tail = ": keep-alive\n\n";
      if (ex->tail.empty()) {
        ex->suspended = true;
        ex->wake = kOnEvent;
        ex->until = ex->quiet_since + kEventKeepAlive;
        MHD_suspend_connection(ex->connection);
        waiting_.push_back(ex);
        timers_.notify_all();
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

void HttpServer::next_events(const std::shared_ptr<Exchange>& ex) {
  // Object events from the log, by id: none is lost to a client that reads slower than frames
  // come, as frames are.
  if (backend_.object_events) {
    const EventLog::Page page = backend_.object_events->since(ex->event_id, kEventsPerTurn);
    if (!page.events.empty()) {
      const Settings s = settings();
      const http::ExpectedMedia expected{s.snapshots, s.crop, s.clips};
      for (const tracking::ObjectEvent& e : page.events) {
        ex->tail += sse("object", e.id, http::event_json(e, state_dir_, &expected));
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
  for (const auto& [number, text] :
       events_out_.wait_after(ex->sent, std::chrono::milliseconds(0))) {
    ex->sent = number;
    ex->tail += *text;
  }
}

bool HttpServer::suspend(const std::shared_ptr<Exchange>& ex, unsigned wake,
                         Clock::time_point until) {
  std::lock_guard lock(waits_mutex_);
  if (closing_) return false;
  if (wake & kOnJob) {
    // The job may have ended between the look and here: no wait then.
    std::lock_guard jobs(jobs_mutex_);
    if (ex->done) return false;
  }
  ex->suspended = true;
  ex->wake = wake;
  ex->until = until;
  MHD_suspend_connection(ex->connection);
  waiting_.push_back(ex);
  if (until != kNever) timers_.notify_all();
  return true;
}

void HttpServer::resume(unsigned wake) {
  const auto now = Clock::now();
  std::lock_guard lock(waits_mutex_);
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    Exchange& ex = **it;
    if ((ex.wake & wake) != 0 || ex.until <= now) {
      MHD_resume_connection(ex.connection);
      ex.suspended = false;
      it = waiting_.erase(it);
    } else {
      ++it;
    }
  }
}

void HttpServer::resume(const std::shared_ptr<Exchange>& ex) {
  std::lock_guard lock(waits_mutex_);
  const auto it = std::find(waiting_.begin(), waiting_.end(), ex);
  if (it == waiting_.end()) return;
  MHD_resume_connection(ex->connection);
  ex->suspended = false;
  waiting_.erase(it);
}

void HttpServer::resume_all() {
  std::lock_guard lock(waits_mutex_);
  for (const auto& ex : waiting_) {
    MHD_resume_connection(ex->connection);
    ex->suspended = false;
  }
  waiting_.clear();
  timers_.notify_all();
}

void HttpServer::timer_loop() {
  for (;;) {
    {
      std::unique_lock lock(waits_mutex_);
      Clock::time_point next = Clock::now() + kSweep;
      for (const auto& ex : waiting_) next = std::min(next, ex->until);
      timers_.wait_until(lock, next);
    }
    if (stopped()) return;
    resume(0);
    connections_.cut_overdue();
    connections_.release_flood_memory();
  }
}

void HttpServer::publish(std::shared_ptr<const FrameResult> result) {
  // The pace of frames, for how long a snapshot may wait for the next one.
  if (!result->frameless) {
    const auto now = Clock::now();
    const std::int64_t previous = last_result_ns_.exchange(now.time_since_epoch().count());
    if (previous != 0) {
      const double gap = std::chrono::duration<double, std::milli>(
                             now - Clock::time_point(Clock::duration(previous)))
                             .count();
      const double mean = result_interval_ms_.load();
      result_interval_ms_ = mean == 0 ? gap : (mean * 3 + gap) / 4;
    }
    latest_index_ = result->index;
  }
  active_tracks_ = result->scene ? static_cast<int>(result->tracks.size()) : -1;
  if (result->scene) {
    std::lock_guard lock(mutex_);
    scene_ = result->scene;
  }
  if (event_clients_.load() == 0 && !result->frame) return;
  {
    std::lock_guard lock(mutex_);
    latest_ = std::move(result);
  }
  wake_.notify_all();
}

bool HttpServer::wants_frame(const FrameResult&) const {
  return watched();
}

bool HttpServer::watched() const {
  return viewers_.load() > 0 || snapshot_waiters_.load() > 0;
}

std::shared_ptr<const std::string> HttpServer::encode(const FrameResult& result,
                                                      const Settings& s) const {
  cv::Mat image = result.frame->clone();
  std::string overlay;
  {
    std::lock_guard lock(mutex_);
    overlay = overlay_;
  }
  draw_result(image, result, overlay);
  std::vector<unsigned char> bytes;
  if (!cv::imencode(".jpg", image, bytes, {cv::IMWRITE_JPEG_QUALITY, s.jpeg_quality})) {
    return nullptr;
  }
  return std::make_shared<const std::string>(bytes.begin(), bytes.end());
}

void HttpServer::encode_loop() {
  setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kEncoderNice);
  Clock::time_point due{};
  std::deque<Clock::time_point> recent;
  for (;;) {
    std::shared_ptr<const FrameResult> result;
    Settings s;
    {
      std::unique_lock lock(mutex_);
      wake_.wait_for(lock, kSweep, [&] { return stopping_ || latest_; });
      if (stopping_) return;
      result = std::move(latest_);
      latest_.reset();
      s = settings_;
    }
    const auto now = Clock::now();
    while (!recent.empty() && now - recent.front() > std::chrono::seconds(3)) recent.pop_front();
    stream_fps_ = recent.size() < 2 ? 0.0 : static_cast<double>(recent.size()) / 3.0;
    if (!result) continue;
    if (event_clients_.load() > 0) {
      if (const auto& scene = result->scene) {
        std::lock_guard lock(mutex_);
        if (scene != counts_scene_ || scene->version != counts_version_) {
          counts_message_ = std::make_shared<const std::string>(
              sse("counts", 0, http::counts_json(*scene, false)));
          counts_scene_ = scene;
          counts_version_ = scene->version;
        }
      }
      // No id: the stream's ids are the object events', which a client resumes from.
      if (!result->frameless) {
        events_out_.push(
            std::make_shared<const std::string>(sse("detections", 0, detections_json(*result))));
      }
      resume(kOnEvent);
    }
    if (!result->frame || result->frame->empty() || !watched()) continue;
    // Paced to max_fps on a schedule, so frames arriving a little faster than it are not halved.
    const auto period =
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / s.max_fps));
    if (now < due - period / 10) continue;
    due = now - due > period ? now + period : due + period;
    if (auto jpeg = encode(*result, s)) {
      {
        std::lock_guard lock(mutex_);
        encoded_at_ = Clock::now();
      }
      encoded_index_ = result->index;
      jpegs_.push(std::move(jpeg));
      resume(kOnFrame);
      ++frames_encoded_;
      recent.push_back(now);
    }
  }
}

}  // namespace yolo::daemon
