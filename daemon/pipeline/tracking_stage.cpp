// SPDX-License-Identifier: Apache-2.0
#include "daemon/pipeline/tracking_stage.h"

#include <algorithm>
#include <utility>

namespace yolo::daemon {

TrackingSettings tracking_settings(const config::Config& config, std::string_view camera) {
  TrackingSettings s{config.tracking, {}, {}};
  for (const config::ZoneConfig& z : config.zones) {
    if (z.camera == camera) s.zones.push_back(z);
  }
  for (const config::LineConfig& l : config.lines) {
    if (l.camera == camera) s.lines.push_back(l);
  }
  return s;
}

TrackingStage::TrackingStage(EventLog& log, std::string camera)
    : log_(log), camera_(camera), scene_(std::move(camera)) {}

void TrackingStage::configure(const TrackingSettings& settings) {
  settings_ = settings;
  if (tracker_) {
    tracker_->configure(settings_.tracking);
  } else {
    tracker_.emplace(settings_.tracking);
  }
  // The scene is configured at the next frame, when the model's class names are known.
  configured_ = false;
  std::vector<std::string> places;
  for (const auto& z : settings_.zones) {
    if (z.camera == camera_) places.push_back(z.name);
  }
  for (const auto& l : settings_.lines) {
    if (l.camera == camera_) places.push_back(l.name);
  }
  std::lock_guard lock(mutex_);
  places_ = std::move(places);
}

void TrackingStage::restore(const tracking::Counts& counts) {
  restored_ = counts;
}

bool TrackingStage::request_reset(std::string_view place) {
  std::lock_guard lock(mutex_);
  if (std::find(places_.begin(), places_.end(), place) == places_.end()) return false;
  resets_.emplace_back(place);
  return true;
}

void TrackingStage::apply_resets(std::chrono::system_clock::time_point now) {
  std::vector<std::string> resets;
  {
    std::lock_guard lock(mutex_);
    resets.swap(resets_);
  }
  for (const auto& place : resets) scene_.reset(place, now);
}

void TrackingStage::process(FrameResult& result, const vision::Detections& all, cv::Size frame) {
  if (!enabled() || !tracker_) return;
  const vision::ClassNames& names = result.model->names;
  if (!configured_ || names.names() != names_) {
    // Another model's class ids mean other things: its tracks would carry wrong labels.
    if (configured_ && names.names() != names_) tracker_->clear();
    names_ = names.names();
    // The scene keeps the places whose definition did not change, and their counts.
    scene_.configure(settings_.zones, settings_.lines, names);
    // An earlier run's counts go to the places as first configured.
    if (restored_) scene_.restore(*std::exchange(restored_, std::nullopt));
    configured_ = true;
    state_.reset();
  }
  last_captured_ = result.captured;
  last_frame_scene_ = result.scene_time;
  last_size_ = frame;
  step(result, all, frame);
}

bool TrackingStage::idle(FrameResult& result, std::chrono::steady_clock::time_point now) {
  if (!enabled() || !tracker_ || !configured_) return false;
  const auto away = now - last_captured_;
  // The scene's clock goes on from the last frame's as the wall clock does.
  result.scene_time = last_frame_scene_ + away;
  result.captured = now;
  result.frameless = true;
  if (tracker_->live_tracks() > 0 &&
      away >= std::chrono::duration<double>(settings_.tracking.lost_s)) {
    step(result, {}, last_size_);
    return true;
  }
  // A reset asked while no frame comes applies now, not when the camera is back.
  result.scene_time = std::max(result.scene_time, last_scene_);
  const std::uint64_t before = scene_.version();
  apply_resets(result.wall);
  if (scene_.version() == before) return false;
  share_scene(result, before);
  return true;
}

void TrackingStage::step(FrameResult& result, const vision::Detections& all, cv::Size frame) {
  // A file read unpaced and a stop of the camera meet here: time never goes back for the tracker.
  result.scene_time = std::max(result.scene_time, last_scene_);
  last_scene_ = result.scene_time;
  // Taken before the resets, so that a reset alone also makes a new scene state.
  const std::uint64_t before = scene_.version();
  apply_resets(result.wall);
  const tracking::TrackUpdate& update =
      tracker_->update(all, result.scene_time, result.index, frame);
  result.object_events = scene_.update(update, frame, result.wall, result.scene_time, result.index);
  log_.add(result.object_events);
  result.tracks = update.tracks;
  share_scene(result, before);
}

void TrackingStage::share_scene(FrameResult& result, std::uint64_t before) {
  // The scene state is shared by every result until something in it changes.
  std::map<std::string, int, std::less<>> occupancy;
  for (const auto& z : settings_.zones) {
    if (z.camera == camera_) occupancy[z.name] = std::max(0, scene_.occupancy(z.name));
  }
  if (!state_ || scene_.version() != before || occupancy != state_->occupancy) {
    auto state = std::make_shared<SceneState>();
    state->camera = camera_;
    for (const auto& z : settings_.zones) {
      if (z.camera == camera_) state->zones.push_back(z);
    }
    for (const auto& l : settings_.lines) {
      if (l.camera == camera_) state->lines.push_back(l);
    }
    state->counts = scene_.counts();
    state->occupancy = std::move(occupancy);
    state->version = (state_ ? state_->version : 0) + 1;
    state_ = std::move(state);
  }
  result.scene = state_;
}

}  // namespace yolo::daemon
