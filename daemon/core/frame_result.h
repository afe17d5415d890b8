// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <opencv2/core.hpp>

#include "config/sections/lines.h"
#include "config/sections/zones.h"
#include "detector/motion_gate.h"
#include "runtime/engine/precision.h"
#include "tracking/counts.h"
#include "tracking/object_event.h"
#include "tracking/track.h"
#include "vision/class_names.h"
#include "vision/detection.h"

namespace yolo::daemon {

// The model an inference ran on: what logs, status and reports name it by.
struct ModelInfo {
  std::filesystem::path path;  // the file the engine runs (the INT8 file at int8)
  std::string name;            // its stem, e.g. "yolo11n_320_fp32"
  runtime::Precision precision = runtime::Precision::kFp32;  // kFp32 or kInt8
  int input_width = 0;
  int input_height = 0;
  vision::ClassNames names;
  // What `yolo-edge inspect --lint` finds in the file (a broken or slow INT8 file), one line each.
  std::vector<std::string> warnings;
};

// Time each stage of one frame took, in milliseconds.
struct StageTimes {
  // From capture to the start of preprocessing: how long the frame waited.
  double capture_age_ms = 0;
  double preprocess_ms = 0;
  double inference_ms = 0;
  double postprocess_ms = 0;
  // From capture to the result being ready.
  double end_to_end_ms = 0;
};

// One stage: its name in the status and the metrics' "stage" label, and its time in StageTimes.
struct Stage {
  std::string_view name;
  double StageTimes::*ms;
};
// Every stage, in pipeline order.
inline constexpr std::array<Stage, 5> kStages{{{"capture_age", &StageTimes::capture_age_ms},
                                               {"preprocess", &StageTimes::preprocess_ms},
                                               {"inference", &StageTimes::inference_ms},
                                               {"postprocess", &StageTimes::postprocess_ms},
                                               {"end_to_end", &StageTimes::end_to_end_ms}}};

// One camera's zones and lines as they stand after a frame: what the page draws and MQTT and the
// metrics report. Shared by every result until it changes.
struct SceneState {
  std::string camera;
  std::vector<config::ZoneConfig> zones;
  std::vector<config::LineConfig> lines;
  tracking::Counts counts;
  // Tracks in each zone now, by zone name.
  std::map<std::string, int, std::less<>> occupancy;
  // Goes up whenever the counts or occupancy change.
  std::uint64_t version = 0;
};

// One processed frame, as every publisher receives it.
// How a camera with motion on had its frame detected.
struct FrameMotion {
  detector::Pass pass = detector::Pass::kWhole;
  // The crops the model ran on (kRegions), in frame pixels.
  std::vector<cv::Rect> regions;
  // The motion detector's time.
  double ms = 0;
};

struct FrameResult {
  // The camera it came from (config::CameraConfig::name).
  std::string camera;
  // The source's frame number (0, 1, 2, ... continuing across loops and reopenings).
  std::int64_t index = -1;
  std::chrono::steady_clock::time_point captured;
  // The frame's vision::Frame::scene_time: what tracks and clips go by.
  std::chrono::steady_clock::time_point scene_time;
  std::chrono::system_clock::time_point wall;
  StageTimes times;
  vision::Detections detections;
  std::shared_ptr<const ModelInfo> model;
  int threads = 0;
  // The camera's turns skipped since its previous result (at every frame: frames the capture
  // replaced before inference took them).
  std::int64_t dropped = 0;
  // No frame: the camera gave none for tracking.lost_s and the tracks ended by time. Only the
  // tracking members say something; frame statistics (fps, latency, detections) skip it.
  bool frameless = false;
  // With motion on for the camera: how the frame was detected (its detections also hold the boxes
  // kept from earlier frames where nothing was detected this time).
  std::optional<FrameMotion> motion;
  // The captured pixels (BGR), present only while some publisher asks for them.
  std::shared_ptr<const cv::Mat> frame;
  // With tracking on (tracking.enabled): the confirmed tracks alive at this frame,
  std::vector<tracking::Track> tracks;
  // what they did at it, numbered by the daemon's EventLog,
  std::vector<tracking::ObjectEvent> object_events;
  // and the zones and lines after it. Null with tracking off.
  std::shared_ptr<const SceneState> scene;
};

}  // namespace yolo::daemon
