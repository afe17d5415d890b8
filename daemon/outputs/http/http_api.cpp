// SPDX-License-Identifier: Apache-2.0
// The API's answers: status, metrics, the streams and the snapshot, the events with their files,
// the counts, and the requests that change the daemon (run on the control thread).
#include <fcntl.h>
#include <microhttpd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "daemon/outputs/http/http_json.h"
#include "daemon/outputs/http/http_output.h"
#include "daemon/outputs/http/http_routes.h"

namespace yolo::daemon {

namespace {

using http::queue;
using http::queue_error;

// GET /api/events gives this many events unless asked for fewer or more (up to kMaxEventPage).
constexpr std::int64_t kEventPage = 100;
constexpr std::int64_t kMaxEventPage = 1000;
// An event's files never change once written: a browser may keep them this long.
constexpr const char* kMediaCache = "private, max-age=86400";

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

http::Answer json_answer(int status, const nlohmann::json& body) {
  return {status, body.dump() + "\n", "application/json", {}};
}

}  // namespace

int HttpOutput::serve_status(const ExchangePtr& ex) {
  const auto status = backend_.status();
  if (!status) return queue_error(ex->connection, 503, "starting: no status yet");
  nlohmann::json j = to_json(*status);
  if (const int tracks = active_tracks_.load(); tracks >= 0 && !j.contains("tracking")) {
    j["tracking"] = {{"active_tracks", tracks},
                     {"events", backend_.object_events ? backend_.object_events->last_id() : 0}};
  }
  return http::queue_json(ex->connection, j.dump() + "\n");
}

int HttpOutput::serve_metrics(const ExchangePtr& ex) {
  return queue(ex->connection, 200, backend_.metrics(), "text/plain; version=0.0.4; charset=utf-8",
               {{"Cache-Control", "no-store"}});
}

std::optional<int> HttpOutput::refuse_stream(const http::Exchange& ex) {
  int cap = 0;
  {
    std::lock_guard lock(mutex_);
    cap = http_.max_viewers;
  }
  int viewers = event_stream_.clients();
  for (const http::MjpegStream* s : streams()) viewers += s->viewers();
  if (viewers < cap) return std::nullopt;
  ++refused_;
  return queue_error(ex.connection, 503,
                     "too many viewers: " + std::to_string(cap) +
                         " streams are open (http.max_viewers); close one or raise the setting",
                     {{"Retry-After", "10"}});
}

int HttpOutput::serve_stream(const ExchangePtr& ex) {
  int answer = MHD_NO;
  http::MjpegStream* stream = stream_of(*ex, &answer);
  if (!stream) return answer;
  if (const auto refused = refuse_stream(*ex)) return *refused;
  return stream->serve(ex);
}

int HttpOutput::serve_detections(const ExchangePtr& ex) {
  if (const auto refused = refuse_stream(*ex)) return *refused;
  return event_stream_.serve(ex);
}

int HttpOutput::serve_snapshot(const ExchangePtr& ex) {
  int answer = MHD_NO;
  http::MjpegStream* stream = stream_of(*ex, &answer);
  return stream ? stream->serve_snapshot(ex) : answer;
}

int HttpOutput::serve_events(const ExchangePtr& ex) {
  MHD_Connection* c = ex->connection;
  std::int64_t since = 0;
  std::int64_t limit = kEventPage;
  if (const auto text = http::query_argument(c, "since")) {
    const auto value = http::whole_number(*text);
    if (!value) {
      return queue_error(c, 400,
                         "since=" + *text +
                             " is not an event id: send the id of the last event you have, a "
                             "whole number (0 for the oldest kept), e.g. /api/events?since=120");
    }
    since = *value;
  }
  if (const auto text = http::query_argument(c, "limit")) {
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
  for (const tracking::ObjectEvent& e : page.events) {
    events.push_back(http::event_json(e, state_dir_));
  }
  const std::int64_t last = page.events.empty() ? since : page.events.back().id;
  const nlohmann::json body = {
      {"events", std::move(events)}, {"last_id", last}, {"more", page.more}};
  return http::queue_json(c, body.dump() + "\n");
}

int HttpOutput::serve_event_snapshot(const ExchangePtr& ex) {
  return serve_event_file(ex, &EventMedia::snapshot, "image/jpeg", "snapshot");
}

int HttpOutput::serve_event_crop(const ExchangePtr& ex) {
  return serve_event_file(ex, &EventMedia::crop, "image/jpeg", "crop");
}

int HttpOutput::serve_event_clip(const ExchangePtr& ex) {
  return serve_event_file(ex, &EventMedia::clip, "video/x-msvideo", "clip");
}

int HttpOutput::serve_event_file(const ExchangePtr& ex, std::filesystem::path EventMedia::*file,
                                 const char* type, const char* what) {
  MHD_Connection* c = ex->connection;
  const auto missing = [&] {
    return queue_error(c, 404,
                       "event " + std::to_string(ex->id) + " has no " + what +
                           ": none was saved for it (events.snapshots, events.crop, "
                           "events.clips), or the disk budget (events.max_mb, events.max_days) "
                           "has removed it since");
  };
  if (state_dir_.empty()) return missing();
  // The file is named from the id alone (a number): the client's path never reaches the disk.
  const std::filesystem::path path = event_media(state_dir_, ex->id).*file;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return missing();
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return missing();
  }
  // Sent from the open file (the response owns it from here): removed by the budget meanwhile,
  // it is still read whole.
  MHD_Response* response = MHD_create_response_from_fd(static_cast<std::uint64_t>(st.st_size), fd);
  if (!response) {
    close(fd);
    return MHD_NO;
  }
  // Named as the route names it: event-ID-snapshot.jpg.
  const std::string_view name = ex->route->path.substr(ex->route->path.rfind('/') + 1);
  const std::string disposition =
      "inline; filename=\"event-" + std::to_string(ex->id) + "-" + std::string(name) + "\"";
  MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, type);
  MHD_add_response_header(response, "X-Content-Type-Options", "nosniff");
  MHD_add_response_header(response, "Cache-Control", kMediaCache);
  MHD_add_response_header(response, "Content-Disposition", disposition.c_str());
  const MHD_Result result = MHD_queue_response(c, MHD_HTTP_OK, response);
  MHD_destroy_response(response);
  return result;
}

int HttpOutput::serve_counts(const ExchangePtr& ex) {
  std::map<std::string, std::shared_ptr<const SceneState>, std::less<>> scenes;
  {
    std::lock_guard lock(mutex_);
    scenes = scenes_;
  }
  nlohmann::json body;
  if (scenes.size() == 1) {
    body = http::counts_json(*scenes.begin()->second, true);
    body["tracking"] = true;
  } else if (!scenes.empty()) {
    // Several cameras: each place says its camera.
    nlohmann::json places = nlohmann::json::array();
    for (const auto& [camera, scene] : scenes) {
      for (nlohmann::json place : http::counts_json(*scene, true)["places"]) {
        place["camera"] = camera;
        places.push_back(std::move(place));
      }
    }
    body = {{"tracking", true}, {"places", std::move(places)}};
  } else {
    body = {{"tracking", false}, {"places", nlohmann::json::array()}};
  }
  body["hours_are"] =
      "local time: each key of \"hours\" is the start of a local hour with the UTC offset then "
      "(e.g. 2026-11-28T08:00+01:00); \"since\" is UTC";
  return http::queue_json(ex->connection, body.dump() + "\n");
}

int HttpOutput::serve_counts_reset(const ExchangePtr& ex) {
  MHD_Connection* c = ex->connection;
  const nlohmann::json body = nlohmann::json::parse(ex->body, nullptr, false);
  const auto place_at = body.is_object() ? body.find("place") : body.end();
  if (body.is_discarded() || !body.is_object() || place_at == body.end() ||
      !place_at->is_string() || place_at->get<std::string>().empty()) {
    return queue_error(c, 400,
                       "the body must be JSON like {\"place\": \"NAME\"}: the zone's or line's "
                       "name (GET /api/counts lists them)");
  }
  const auto camera_at = body.find("camera");
  if (camera_at != body.end() && !camera_at->is_string()) {
    return queue_error(c, 400, "\"camera\" must be a camera's name, e.g. \"main\"");
  }
  std::map<std::string, std::shared_ptr<const SceneState>, std::less<>> scenes;
  {
    std::lock_guard lock(mutex_);
    scenes = scenes_;
  }
  const std::string place = place_at->get<std::string>();
  // Without "camera": the one camera's, or the camera that has a place of that name.
  std::string camera = camera_at != body.end() ? camera_at->get<std::string>() : std::string();
  if (camera.empty()) {
    camera = scenes.empty() ? std::string(config::kMainCamera) : scenes.begin()->first;
    for (const auto& [name, s] : scenes) {
      if (has_place(*s, place)) camera = name;
    }
  }
  const auto found = scenes.find(camera);
  const std::shared_ptr<const SceneState> scene =
      found != scenes.end() ? found->second : (scenes.empty() ? nullptr : scenes.begin()->second);
  if (!scene) {
    return queue_error(c, 404,
                       "no zones or lines to reset: tracking is off (tracking.enabled) "
                       "or no frame has been processed yet");
  }
  if (camera != scene->camera || !has_place(*scene, place)) {
    return queue_error(c, 404,
                       "camera " + camera + " has no zone or line named '" + place + "'; camera " +
                           scene->camera + " has: " + place_names(*scene));
  }
  if (!backend_.reset_counts) {
    return queue_error(c, 503, "counts cannot be reset in this daemon (no tracking stage)");
  }
  const std::string origin =
      ex->method + " " + ex->path + " from " + http::address_text(ex->address);
  return post_job(ex, [this, camera, place, origin] {
    if (!backend_.reset_counts(camera, place)) {
      // Gone in a reload since the check.
      return http::error_answer(404, "camera " + camera + " has no zone or line named '" + place +
                                         "' (any more); GET /api/counts lists them");
    }
    events_.log().info("http: the counts of " + place + " (camera " + camera + ") were reset by " +
                       origin);
    return json_answer(200, {{"ok", true},
                             {"camera", camera},
                             {"place", place},
                             {"message", "the counts of " + place + " start again from now"}});
  });
}

int HttpOutput::serve_precision(const ExchangePtr& ex) {
  const nlohmann::json body = nlohmann::json::parse(ex->body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    return queue_error(ex->connection, 400, "the body must be JSON like {\"precision\": \"int8\"}");
  }
  const auto it = body.find("precision");
  if (it == body.end() || !it->is_string()) {
    return queue_error(ex->connection, 400,
                       "missing \"precision\": send {\"precision\": \"fp32\"} or "
                       "{\"precision\": \"int8\"}");
  }
  return serve_control(ex, {ControlRequest::Kind::kPrecision, it->get<std::string>(), {}});
}

int HttpOutput::serve_reload(const ExchangePtr& ex) {
  return serve_control(ex, {ControlRequest::Kind::kReload, {}, {}});
}

int HttpOutput::serve_control(const ExchangePtr& ex, ControlRequest request) {
  request.origin = ex->method + " " + ex->path + " from " + http::address_text(ex->address);
  return post_job(ex, [this, request] {
    const std::optional<ControlReply> reply = backend_.control(request, limits_.control_timeout);
    if (!reply) return http::error_answer(504, "the daemon did not answer in time; see its log");
    const int status = reply->outcome == ControlReply::Outcome::kApplied   ? 200
                       : reply->outcome == ControlReply::Outcome::kRefused ? 422
                                                                           : 503;
    return json_answer(status, {{"ok", reply->outcome == ControlReply::Outcome::kApplied},
                                {"message", reply->message},
                                {"changed", reply->changed}});
  });
}

int HttpOutput::post_job(const ExchangePtr& ex, std::function<http::Answer()> job) {
  ex->job = std::move(job);
  control_.post(ex);
  return answer_job(ex);
}

int HttpOutput::answer_job(const ExchangePtr& ex) {
  if (waiting_.suspend(ex, http::kOnJob, http::kNever)) return MHD_YES;
  if (waiting_.finished(*ex) && ex->held) return queue(ex->connection, *ex->held);
  return queue_error(ex->connection, 503, "the daemon is stopping");
}

}  // namespace yolo::daemon
