// SPDX-License-Identifier: Apache-2.0
#include "daemon/pipeline/camera_motion.h"

#include <utility>
#include <vector>

#include "vision/latency_stats.h"

namespace yolo::daemon {
namespace {

// The frames the status is taken over.
constexpr std::size_t kRecentFrames = 100;

}  // namespace

std::optional<detector::MotionGateSettings> motion_settings(const config::Config& config,
                                                            const config::CameraConfig& camera) {
  if (!config::motion_enabled(config, camera)) return std::nullopt;
  const config::MotionConfig& m = config.motion;
  detector::MotionGateSettings s;
  s.motion.width = m.width;
  s.motion.threshold = m.threshold;
  s.motion.min_area = m.min_area;
  s.motion.learning_rate = m.learning_rate;
  for (const config::MotionMaskConfig& mask : config.motion_masks) {
    if (mask.camera != camera.name) continue;
    auto& polygon = s.motion.masks.emplace_back();
    for (const config::FramePoint& p : mask.points) {
      polygon.emplace_back(static_cast<float>(p.x), static_cast<float>(p.y));
    }
  }
  s.regions.max_regions = m.max_regions;
  s.full_frame_s = m.full_frame_s;
  return s;
}

void CameraMotion::configure(std::optional<detector::MotionGateSettings> settings) {
  std::lock_guard lock(mutex_);
  pending_ = std::move(settings);
}

detector::MotionGate* CameraMotion::gate() {
  std::optional<std::optional<detector::MotionGateSettings>> pending;
  {
    std::lock_guard lock(mutex_);
    pending = std::exchange(pending_, std::nullopt);
    if (pending) {
      enabled_ = pending->has_value();
      recent_.clear();
    }
  }
  if (pending) {
    // The config's ranges are the detector's, so a gate always builds.
    if (*pending) {
      gate_.emplace(**pending);
    } else {
      gate_.reset();
    }
  }
  return gate_ ? &*gate_ : nullptr;
}

void CameraMotion::record(const detector::GatedDetections& frame) {
  std::lock_guard lock(mutex_);
  recent_.push_back({frame.pass, frame.runs, frame.motion.ms});
  if (recent_.size() > kRecentFrames) recent_.pop_front();
}

std::optional<MotionStatus> CameraMotion::status() const {
  std::lock_guard lock(mutex_);
  if (!enabled_) return std::nullopt;
  MotionStatus s;
  s.frames = static_cast<std::int64_t>(recent_.size());
  if (recent_.empty()) return s;
  std::vector<double> ms;
  double runs = 0;
  for (const Entry& e : recent_) {
    s.whole_share += e.pass == detector::Pass::kWhole ? 1 : 0;
    s.regions_share += e.pass == detector::Pass::kRegions ? 1 : 0;
    s.still_share += e.pass == detector::Pass::kStill ? 1 : 0;
    runs += e.runs;
    ms.push_back(e.ms);
  }
  const double n = static_cast<double>(recent_.size());
  s.whole_share /= n;
  s.regions_share /= n;
  s.still_share /= n;
  s.runs_per_frame = runs / n;
  const vision::LatencyStats stats = vision::summarize(std::move(ms));
  s.ms_p50 = stats.p50;
  s.ms_p90 = stats.p90;
  return s;
}

}  // namespace yolo::daemon
