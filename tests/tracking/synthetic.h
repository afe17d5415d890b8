// SPDX-License-Identifier: Apache-2.0
#pragma once

// Sequences with known truth for the tracker's tests and benchmark: objects moving on straight
// paths through a 1280x720 frame, seen by a detector that jitters boxes, misses a share of them,
// loses them behind occluders and sees a few things that are not there; and MOTA (CLEAR MOT) of
// what a tracker reports against that truth.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "tracking/assignment.h"
#include "tracking/tracker.h"
#include "vision/detection.h"

namespace yolo::test {

inline const cv::Size kSyntheticFrame{1280, 720};

struct TruthObject {
  int class_id = 0;
  // Centre when it appears (at from_s; pixels) and velocity (pixels per second).
  cv::Point2f start;
  cv::Point2f velocity;
  float width = 40;
  float height = 90;
  // Seconds it exists.
  double from_s = 0;
  double to_s = 1e9;
  // Spans of seconds it is hidden (no detection, still there).
  std::vector<std::pair<double, double>> hidden;

  vision::Box box_at(double t) const {
    const float cx = start.x + velocity.x * static_cast<float>(t - from_s);
    const float cy = start.y + velocity.y * static_cast<float>(t - from_s);
    return {cx - width / 2, cy - height / 2, cx + width / 2, cy + height / 2};
  }
  bool exists(double t) const {
    if (t < from_s || t > to_s) return false;
    const vision::Box b = box_at(t);
    return b.x2 > 0 && b.y2 > 0 && b.x1 < kSyntheticFrame.width && b.y1 < kSyntheticFrame.height;
  }
  bool visible(double t) const {
    return exists(t) && std::none_of(hidden.begin(), hidden.end(),
                                     [t](const auto& s) { return t >= s.first && t < s.second; });
  }
};

struct DetectorNoise {
  double fps = 30;
  // Share of visible objects the detector misses in a frame.
  double drop = 0.2;
  // Box corners move by up to this many pixels.
  float jitter = 3;
  // Scores drawn from this range; below tracking.high_score some are.
  float min_score = 0.35f;
  float max_score = 0.95f;
  // Made-up boxes per frame, on average.
  double false_positives = 0.3;
};

struct SyntheticFrame {
  std::int64_t index = 0;
  double t = 0;
  vision::Detections detections;
  // Truth objects present (by index into the scenario), with their boxes.
  std::vector<std::pair<int, vision::Box>> truth;
};

inline std::vector<SyntheticFrame> generate(const std::vector<TruthObject>& objects, double seconds,
                                            const DetectorNoise& noise, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> jitter(-noise.jitter, noise.jitter);
  std::uniform_real_distribution<float> score(noise.min_score, noise.max_score);
  std::uniform_real_distribution<double> unit(0, 1);
  std::poisson_distribution<int> fps(noise.false_positives);
  std::vector<SyntheticFrame> frames;
  const auto n = static_cast<std::int64_t>(seconds * noise.fps);
  for (std::int64_t i = 0; i < n; ++i) {
    SyntheticFrame f;
    f.index = i;
    f.t = static_cast<double>(i) / noise.fps;
    for (std::size_t k = 0; k < objects.size(); ++k) {
      const TruthObject& o = objects[k];
      if (!o.exists(f.t)) continue;
      const vision::Box b = o.box_at(f.t);
      f.truth.emplace_back(static_cast<int>(k), b);
      if (!o.visible(f.t) || unit(rng) < noise.drop) continue;
      f.detections.push_back(
          {o.class_id,
           score(rng),
           {b.x1 + jitter(rng), b.y1 + jitter(rng), b.x2 + jitter(rng), b.y2 + jitter(rng)}});
    }
    for (int k = fps(rng); k > 0; --k) {
      const float x = static_cast<float>(unit(rng) * (kSyntheticFrame.width - 60));
      const float y = static_cast<float>(unit(rng) * (kSyntheticFrame.height - 100));
      f.detections.push_back({0, score(rng), {x, y, x + 50, y + 90}});
    }
    frames.push_back(std::move(f));
  }
  return frames;
}

struct MotFigures {
  std::int64_t truth = 0;
  std::int64_t misses = 0;
  std::int64_t false_positives = 0;
  std::int64_t id_switches = 0;
  double mota() const {
    return truth == 0 ? 1.0
                      : 1.0 - static_cast<double>(misses + false_positives + id_switches) /
                                  static_cast<double>(truth);
  }
};

// CLEAR MOT's per-frame matching at IoU >= 0.5: a truth object keeps the track it was matched to
// while they still overlap enough, the rest are matched optimally; a truth object matched to
// another track than before is an id switch.
class MotCounter {
 public:
  void add(const SyntheticFrame& frame, const std::vector<tracking::Track>& tracks) {
    figures_.truth += static_cast<std::int64_t>(frame.truth.size());
    std::vector<bool> truth_done(frame.truth.size()), track_done(tracks.size());
    std::map<int, std::int64_t> now;
    for (std::size_t g = 0; g < frame.truth.size(); ++g) {
      const auto last = current_.find(frame.truth[g].first);
      if (last == current_.end()) continue;
      for (std::size_t k = 0; k < tracks.size(); ++k) {
        if (!track_done[k] && tracks[k].id == last->second &&
            vision::iou(tracks[k].box, frame.truth[g].second) >= 0.5f) {
          truth_done[g] = track_done[k] = true;
          now[frame.truth[g].first] = tracks[k].id;
        }
      }
    }
    std::vector<int> gs, ks;
    for (std::size_t g = 0; g < frame.truth.size(); ++g) {
      if (!truth_done[g]) gs.push_back(static_cast<int>(g));
    }
    for (std::size_t k = 0; k < tracks.size(); ++k) {
      if (!track_done[k]) ks.push_back(static_cast<int>(k));
    }
    tracking::CostMatrix m{static_cast<int>(gs.size()), static_cast<int>(ks.size()), {}};
    for (int g : gs) {
      for (int k : ks) {
        m.cost.push_back(1 - vision::iou(frame.truth[static_cast<std::size_t>(g)].second,
                                         tracks[static_cast<std::size_t>(k)].box));
      }
    }
    std::vector<int> row_of_col;
    const std::vector<int> col = tracking::assign(m, 0.5f, row_of_col);
    for (std::size_t r = 0; r < gs.size(); ++r) {
      const auto& truth = frame.truth[static_cast<std::size_t>(gs[r])];
      if (col[r] < 0) {
        ++figures_.misses;
        continue;
      }
      const std::int64_t id =
          tracks[static_cast<std::size_t>(ks[static_cast<std::size_t>(col[r])])].id;
      if (const auto seen = ever_.find(truth.first); seen != ever_.end() && seen->second != id) {
        ++figures_.id_switches;
      }
      now[truth.first] = id;
      track_done[static_cast<std::size_t>(ks[static_cast<std::size_t>(col[r])])] = true;
    }
    for (bool done : track_done) figures_.false_positives += done ? 0 : 1;
    current_ = now;
    for (const auto& [g, id] : now) ever_[g] = id;
  }
  const MotFigures& figures() const { return figures_; }

 private:
  MotFigures figures_;
  // Each truth object's track at the last frame it was matched, and at any earlier one.
  std::map<int, std::int64_t> current_;
  std::map<int, std::int64_t> ever_;
};

inline config::TrackingConfig default_tracking() {
  return {.enabled = true,
          .high_score = 0.5,
          .low_score = 0.1,
          .new_score = 0.6,
          .match_iou = 0.2,
          .confirm_frames = 3,
          .lost_s = 1.5};
}

inline tracking::SteadyTime at_seconds(double t) {
  return tracking::SteadyTime(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(1000 + t)));
}

}  // namespace yolo::test
