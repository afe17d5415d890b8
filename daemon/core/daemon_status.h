// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "daemon/core/frame_result.h"
#include "runtime/engine/precision.h"
#include "telemetry/sample.h"

// The daemon's status as the parts inside the process hand it to each other (the control loop
// builds it 4 times a second; outputs, the status line and the watchdog read it). It becomes JSON
// only at the edges: GET /api/status, MQTT's stats topic (to_json below).
namespace yolo::daemon {

enum class DaemonState { kStarting, kRunning, kReloading };
// "starting", "running", "reloading".
std::string_view state_name(DaemonState state);

// What the capture thread is doing. kLost: the source failed or ended and a reopen is waited for.
enum class SourceState { kOpening, kStreaming, kLost, kStopped };
// "opening", "streaming", "lost", "stopped".
std::string_view state_name(SourceState state);

struct SourceStatus {
  SourceState state = SourceState::kStopped;
  std::string uri;
  // What was opened ("/dev/video0 640x480 MJPG 30 fps"); empty before the first open.
  std::string description;
  std::int64_t frames = 0;
  std::int64_t reopened = 0;
  // Frames the inference thread never took (a newer one replaced them).
  std::int64_t dropped = 0;
  std::string last_error;
  // While kLost and waiting: seconds until the next attempt (none while an attempt runs).
  std::optional<double> retry_in_s;
};

// A camera's motion-gated detection over its last frames (up to 100).
struct MotionStatus {
  std::int64_t frames = 0;
  // Shares of those frames detected whole, in crops around motion, and not at all (still).
  double whole_share = 0;
  double regions_share = 0;
  double still_share = 0;
  // Model runs per frame (a whole frame is 1, a crop 1, a still frame 0).
  double runs_per_frame = 0;
  // The motion detector's time per frame.
  double ms_p50 = 0;
  double ms_p90 = 0;
};

// The keys of the status's cameras (to_json(CameraStatus) and its source) that MQTT's stats and
// Home Assistant's sensors read, each named once.
namespace status_key {
// The list of cameras, at the status's top.
inline constexpr char kCameras[] = "cameras";
// A camera's.
inline constexpr char kName[] = "name";
inline constexpr char kSource[] = "source";
inline constexpr char kCameraFps[] = "camera_fps";
inline constexpr char kDetectionFps[] = "detection_fps";
inline constexpr char kSkippedFps[] = "skipped_fps";
// Its source's: state_name(SourceState).
inline constexpr char kState[] = "state";
}  // namespace status_key

// One camera as the status shows it: its source, and how inference serves it, by Frigate's names
// (camera fps, detection fps, skipped fps).
struct CameraStatus {
  std::string name;
  SourceStatus source;
  // Its detect_fps setting: the most frames a second it is detected at (0: every frame).
  double detect_fps_limit = 0;
  // Frames a second the source delivers, detected, and turns missed (frames that were due for
  // detection but found inference busy), over the last few seconds.
  double camera_fps = 0;
  double detection_fps = 0;
  double skipped_fps = 0;
  // Since the daemon started.
  std::int64_t detected = 0;
  std::int64_t skipped = 0;
  // Its motion gate; none when motion is off for it.
  std::optional<MotionStatus> motion;
  // A setting the camera cannot honour (a detect_fps above what the source delivers); empty when
  // none.
  std::string warning;
};

// One change of course of the thread controller: a count tried, a count settled on, or exploring
// again, with the measurements behind it. Logged as an event and shown in the status.
struct ThreadDecision {
  int from = 0;
  int to = 0;
  // What happened. Exploring: "explore" (next count), "settle", "abandon" (a count far slower than
  // the best known: exploring stops and settles on the best). Exploring again: "restart" (model,
  // precision or policy changed), "throttled" (throttling started or ended), "drift" (settled
  // latency moved by over 20 %, or collapsed), "recheck" (settled a long time: the load may have
  // changed). "fixed": fixed mode, nothing measured.
  std::string kind;
  // A sentence for people, e.g. "settled on 1 thread: 12.1 ms median vs 13.0 ms at 2".
  std::string reason;
  // Median inference latency measured at each count tried so far in this exploration.
  std::map<int, double> latency_ms;
};

// Median and 90th percentile of one stage over the recent results, in milliseconds.
struct StageLatency {
  double p50 = 0;
  double p90 = 0;
};

struct InferenceStatus {
  std::int64_t frames = 0;
  double fps = 0;
  int threads = 0;
  // False while the thread controller explores.
  bool settled = false;
  // Frames left in a precision trial under way (0: none).
  int trial_frames_left = 0;
  // Per stage, in kStages' order; empty before the first results.
  std::vector<StageLatency> latency_ms;
  std::optional<ThreadDecision> last_decision;
};

struct ModelStatus {
  std::string name;
  runtime::Precision precision = runtime::Precision::kFp32;
  std::filesystem::path file;
  int input_width = 0;
  int input_height = 0;
  // model.imgsz as the config reads it ("auto", "640").
  std::string imgsz;
  config::Precision wanted = config::Precision::kFp32;
  // Why the wanted precision is not running yet ("int8 pending: quantizing (40 %)"); empty when
  // it is.
  std::string pending;
  // Problems `inspect --lint` finds in the file.
  std::vector<std::string> warnings;
  // precision: auto: where the choice stands ("measuring", "decided", ...) and the decision
  // record the precision trial made.
  struct Auto {
    std::string state;
    nlohmann::json decision;
  };
  std::optional<Auto> automatic;
  // A model.precision set through the API or a button, holding over the file's.
  struct Override {
    std::string value;
    std::string origin;
  };
  std::optional<Override> precision_override;
};

// An output's own report (ok, a warning for people, its counters), shown as it is.
struct OutputStatus {
  std::string name;
  nlohmann::json status;
};

struct LastError {
  // ISO 8601 UTC.
  std::string time;
  std::string message;
};

// What the live INT8 checks measured so far (daemon/model/shadow_checks.h), for the outputs that
// record it beside the other figures (the field log's interval lines); the status shows the
// checks' own, fuller report under outputs.int8-checks.
struct Int8CheckFigures {
  // INT8's agreement with FP32 over the checks' window; empty until FP32 found something.
  std::optional<double> agreement;
  // Checks done since the daemon started.
  long checks_total = 0;
};

struct DaemonStatus {
  std::string version;
  DaemonState state = DaemonState::kStarting;
  std::string host;
  std::filesystem::path config_file;
  double uptime_s = 0;
  // The line systemd shows (STATUS=).
  std::string status_line;
  ModelStatus model;
  // In the config's order; the first is the only one of a config without cameras:.
  std::vector<CameraStatus> cameras;
  InferenceStatus inference;
  config::ThreadMode threads_mode = config::ThreadMode::kAdaptive;
  std::optional<telemetry::Sample> device;
  std::vector<OutputStatus> outputs;
  std::optional<LastError> last_error;
  // Empty while the checks do not run (off, or no INT8 file of the model).
  std::optional<Int8CheckFigures> int8_checks;
};

// The status as GET /api/status serves it and MQTT publishes it.
nlohmann::json to_json(const DaemonStatus& status);
nlohmann::json to_json(const SourceStatus& source);
nlohmann::json to_json(const CameraStatus& camera);
nlohmann::json to_json(const InferenceStatus& inference);
// The decision as the status and the field log show it.
nlohmann::json to_json(const ThreadDecision& decision);

}  // namespace yolo::daemon
