// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "daemon/core/event_log.h"
#include "daemon/core/frame_result.h"
#include "tracking/scene.h"
#include "tracking/tracker.h"

namespace yolo::daemon {

// What a camera's tracking stage runs with: the config's tracking section and the camera's zones
// and lines.
struct TrackingSettings {
  config::TrackingConfig tracking;
  std::vector<config::ZoneConfig> zones;
  std::vector<config::LineConfig> lines;

  bool operator==(const TrackingSettings&) const = default;
};
TrackingSettings tracking_settings(const config::Config& config, std::string_view camera);

// The step after detection, on the inference thread: detections into tracks (tracking::Tracker),
// tracks into events and counts (tracking::Scene), events numbered by the EventLog. Ids survive a
// precision swap, a thread change and a reload that keeps the model's class names; other
// threads only ask for a reset of counts, applied before the next frame.
class TrackingStage {
 public:
  TrackingStage(EventLog& log, std::string camera);

  // Inference thread: new settings (tracks kept; zones and lines unchanged keep their counts).
  void configure(const TrackingSettings& settings);
  // Counts kept from an earlier run (before the first frame): the places configured then take
  // theirs.
  void restore(const tracking::Counts& counts);
  bool enabled() const { return settings_.tracking.enabled; }
  const std::string& camera() const { return camera_; }

  // One frame, after detection: `all` holds the detections down to low_score (the result's
  // detections are those at or above detect.conf); fills the result's tracks, events and scene.
  void process(FrameResult& result, const vision::Detections& all, cv::Size frame);

  // While no frame comes (the camera stopped): once tracking.lost_s has passed since the last
  // frame, the tracks still alive end by time, so nobody is left standing in a zone while the
  // camera is away; a reset asked meanwhile applies now. Fills `result` (frameless, no
  // detections) with the events and the scene; false when there is nothing to report.
  bool idle(FrameResult& result, std::chrono::steady_clock::time_point now);

  // Any thread: asks for a place's counts to start again at the next frame; false when the
  // camera has no zone or line of that name.
  bool request_reset(std::string_view place);

 private:
  void apply_resets(std::chrono::system_clock::time_point now);
  // The tracker and the scene at `result`'s scene time; fills its tracks, events and scene.
  void step(FrameResult& result, const vision::Detections& all, cv::Size frame);
  // Puts the scene state on `result`: a new one when the scene changed since version `before`.
  void share_scene(FrameResult& result, std::uint64_t before);

  EventLog& log_;
  std::string camera_;
  TrackingSettings settings_;
  std::optional<tracking::Tracker> tracker_;
  tracking::Scene scene_;
  // The class names the scene was configured with: other names (another model) end every track.
  std::vector<std::string> names_;
  bool configured_ = false;
  // Counts from an earlier run, until the scene is first configured.
  std::optional<tracking::Counts> restored_;
  std::shared_ptr<const SceneState> state_;
  // The last frame: when it came, its scene time and size (for ending tracks by time).
  std::chrono::steady_clock::time_point last_captured_{};
  std::chrono::steady_clock::time_point last_frame_scene_{};
  cv::Size last_size_;
  // The latest scene time the tracker was given, frame or not.
  std::chrono::steady_clock::time_point last_scene_{};

  // Shared with other threads.
  mutable std::mutex mutex_;
  std::vector<std::string> places_;
  std::vector<std::string> resets_;
};

}  // namespace yolo::daemon
