// SPDX-License-Identifier: Apache-2.0
#include "daemon/core/daemon_status.h"

#include <cmath>

#include "fieldlog/keys.h"
#include "text/format.h"

namespace yolo::daemon {

std::string_view state_name(DaemonState state) {
  switch (state) {
    case DaemonState::kStarting:
      return "starting";
    case DaemonState::kRunning:
      return "running";
    case DaemonState::kReloading:
      return "reloading";
  }
  return "starting";
}

std::string_view state_name(SourceState state) {
  switch (state) {
    case SourceState::kOpening:
      return "opening";
    case SourceState::kStreaming:
      return "streaming";
    case SourceState::kLost:
      return "lost";
    case SourceState::kStopped:
      return "stopped";
  }
  return "stopped";
}

nlohmann::json to_json(const CameraStatus& c) {
  namespace key = status_key;
  nlohmann::json j = {{key::kName, c.name},
                      {key::kSource, to_json(c.source)},
                      {"detect_fps", c.detect_fps_limit},
                      {key::kCameraFps, text::rounded(c.camera_fps, 2)},
                      {key::kDetectionFps, text::rounded(c.detection_fps, 2)},
                      {key::kSkippedFps, text::rounded(c.skipped_fps, 2)},
                      {"detected", c.detected},
                      {"skipped", c.skipped}};
  if (c.motion) {
    const MotionStatus& m = *c.motion;
    j["motion"] = {{"frames", m.frames},
                   {"whole_share", text::rounded(m.whole_share, 3)},
                   {"regions_share", text::rounded(m.regions_share, 3)},
                   {"still_share", text::rounded(m.still_share, 3)},
                   {"runs_per_frame", text::rounded(m.runs_per_frame, 2)},
                   {"ms_p50", text::rounded(m.ms_p50, 2)},
                   {"ms_p90", text::rounded(m.ms_p90, 2)}};
  }
  if (!c.warning.empty()) j["warning"] = c.warning;
  return j;
}

nlohmann::json to_json(const ThreadDecision& d) {
  nlohmann::json latency = nlohmann::json::object();
  for (const auto& [threads, ms] : d.latency_ms)
    latency[std::to_string(threads)] = text::rounded(ms, 2);
  namespace key = fieldlog::key;
  return {{key::kFrom, d.from},
          {key::kTo, d.to},
          {key::kKind, d.kind},
          {key::kReason, d.reason},
          {"latency_ms", latency}};
}

nlohmann::json to_json(const SourceStatus& s) {
  nlohmann::json j = {{status_key::kState, state_name(s.state)},
                      {"uri", s.uri},
                      {"frames", s.frames},
                      {"reopened", s.reopened},
                      {"dropped", s.dropped}};
  if (!s.description.empty()) j["description"] = s.description;
  if (!s.last_error.empty()) j["last_error"] = s.last_error;
  if (s.retry_in_s) j["retry_in_s"] = *s.retry_in_s;
  return j;
}

nlohmann::json to_json(const InferenceStatus& s) {
  nlohmann::json j = {{"frames", s.frames},
                      {"fps", text::rounded(s.fps, 2)},
                      {"threads", s.threads},
                      {"settled", s.settled}};
  if (s.trial_frames_left > 0) j["trial_frames_left"] = s.trial_frames_left;
  if (!s.latency_ms.empty()) {
    nlohmann::json latency = nlohmann::json::object();
    for (std::size_t i = 0; i < kStages.size() && i < s.latency_ms.size(); ++i) {
      latency[std::string(kStages[i].name)] = {{"p50", text::rounded(s.latency_ms[i].p50, 2)},
                                               {"p90", text::rounded(s.latency_ms[i].p90, 2)}};
    }
    j["latency_ms"] = std::move(latency);
  }
  if (s.last_decision) j["last_decision"] = to_json(*s.last_decision);
  return j;
}

namespace {

nlohmann::json to_json(const ModelStatus& m) {
  nlohmann::json j = {
      {"name", m.name},          {"precision", runtime::precision_name(m.precision)},
      {"file", m.file.string()}, {"input", {m.input_width, m.input_height}},
      {"imgsz", m.imgsz},        {"wanted_precision", config::precision_name(m.wanted)}};
  if (!m.pending.empty()) j["pending"] = m.pending;
  if (!m.warnings.empty()) j["warnings"] = m.warnings;
  if (m.automatic) {
    j["auto"] = {{"state", m.automatic->state}};
    if (!m.automatic->decision.is_null()) j["auto"]["decision"] = m.automatic->decision;
  }
  if (m.precision_override) {
    j["precision_override"] = {{"value", m.precision_override->value},
                               {"origin", m.precision_override->origin}};
  }
  return j;
}

}  // namespace

nlohmann::json to_json(const DaemonStatus& s) {
  const nlohmann::json inference = to_json(s.inference);
  nlohmann::json j = {{"version", s.version},
                      {"state", state_name(s.state)},
                      {"host", s.host},
                      {"config", s.config_file.string()},
                      {"uptime_s", std::round(s.uptime_s)},
                      {"status_line", s.status_line},
                      {"model", to_json(s.model)},
                      {"fps", inference["fps"]},
                      {"frames", inference["frames"]},
                      {"threads",
                       {{"count", inference["threads"]},
                        {"mode", config::thread_mode_name(s.threads_mode)},
                        {"settled", inference["settled"]}}}};
  nlohmann::json cameras = nlohmann::json::array();
  for (const CameraStatus& c : s.cameras) cameras.push_back(to_json(c));
  // "source" is the first camera's, as it was before cameras: (clients of one camera read it).
  if (!s.cameras.empty()) j["source"] = to_json(s.cameras.front().source);
  j[status_key::kCameras] = std::move(cameras);
  if (inference.contains("trial_frames_left")) {
    j["model"]["trial_frames_left"] = inference["trial_frames_left"];
  }
  if (inference.contains("latency_ms")) j["latency_ms"] = inference["latency_ms"];
  if (inference.contains("last_decision"))
    j["threads"]["last_decision"] = inference["last_decision"];
  if (s.device) {
    j["device"] = telemetry::to_json(*s.device);
    if (const auto hottest = s.device->max_celsius()) j["temperature_c"] = *hottest;
  }
  nlohmann::json outputs = nlohmann::json::object();
  for (const OutputStatus& o : s.outputs) outputs[o.name] = o.status;
  j["outputs"] = std::move(outputs);
  if (s.last_error)
    j["last_error"] = {{"time", s.last_error->time}, {"message", s.last_error->message}};
  return j;
}

}  // namespace yolo::daemon
