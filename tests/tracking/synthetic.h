// SPDX-License-Identifier: Apache-2.0
#pragma once

// Sequences with known truth for the tracker's tests and benchmark (benchmarks/bench_tracking.cpp):
// objects moving on straight paths through a 1280x720 frame, seen by a detector that jitters
// boxes, misses a share of them, loses them behind occluders, scores them noisily and sees a few
// things that are not there; and MOTA (CLEAR MOT) of what a tracker reports against that truth.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <utility>
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
  // In the frame (any part of it) at `t`: the truth a tracker is scored against.
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
  // From these seconds on, this frame rate instead (a precision or thread change), in order.
  std::vector<std::pair<double, double>> fps_from;
  // Each frame comes up to this share of its interval early or late (scheduling, slow frames).
  double interval_jitter = 0;
  // Share of visible objects the detector misses in a frame.
  double drop = 0.2;
  // Box corners move by up to this many pixels.
  float jitter = 3;
  // Each object's typical score is drawn from [base_min, base_max]; each frame's score is that
  // plus or minus up to score_noise (a detector is steadier about one object than across them).
  // base 0.65 +- 0.3 is a score drawn afresh each frame from 0.35 to 0.95: the harshest case.
  float base_min = 0.6f;
  float base_max = 0.9f;
  float score_noise = 0.15f;
  // Made-up boxes per frame, on average, scored from 0.3 to 0.8.
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
  std::uniform_real_distribution<float> base(noise.base_min, noise.base_max);
  std::uniform_real_distribution<float> wobble(-noise.score_noise, noise.score_noise);
  std::uniform_real_distribution<float> false_score(0.3f, 0.8f);
  std::uniform_real_distribution<double> unit(0, 1);
  std::poisson_distribution<int> false_count(noise.false_positives);
  std::vector<float> typical(objects.size());
  for (float& s : typical) s = base(rng);
  std::uniform_real_distribution<double> late(-noise.interval_jitter, noise.interval_jitter);
  std::vector<SyntheticFrame> frames;
  double fps = noise.fps;
  for (double t = 0; t < seconds;) {
    SyntheticFrame f;
    f.index = static_cast<std::int64_t>(frames.size());
    f.t = t;
    for (const auto& [from, rate] : noise.fps_from) {
      if (t >= from) fps = rate;
    }
    t += (1 + late(rng)) / fps;
    for (std::size_t k = 0; k < objects.size(); ++k) {
      const TruthObject& o = objects[k];
      if (!o.exists(f.t)) continue;
      const vision::Box b = o.box_at(f.t);
      f.truth.emplace_back(static_cast<int>(k), b);
      if (!o.visible(f.t) || unit(rng) < noise.drop) continue;
      const float score = std::clamp(typical[k] + wobble(rng), 0.01f, 0.99f);
      f.detections.push_back(
          {o.class_id,
           score,
           {b.x1 + jitter(rng), b.y1 + jitter(rng), b.x2 + jitter(rng), b.y2 + jitter(rng)}});
    }
    for (int k = false_count(rng); k > 0; --k) {
      const float x = static_cast<float>(unit(rng) * (kSyntheticFrame.width - 60));
      const float y = static_cast<float>(unit(rng) * (kSyntheticFrame.height - 100));
      f.detections.push_back({0, false_score(rng), {x, y, x + 50, y + 90}});
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
  MotFigures& operator+=(const MotFigures& o) {
    truth += o.truth;
    misses += o.misses;
    false_positives += o.false_positives;
    id_switches += o.id_switches;
    return *this;
  }
};

// CLEAR MOT (Bernardin and Stiefelhagen 2008) at IoU >= 0.5: a truth object keeps the track it
// was matched to in the previous frame while they still overlap enough; the rest are matched
// optimally (least total 1 - IoU); a truth object matched to another track than the last one it
// was matched to is an id switch. Every box the tracker reports counts, including those of
// confirmed tracks predicted through a miss.
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
        if (tracks[k].id == last->second &&
            vision::iou(tracks[k].box, frame.truth[g].second) >= 0.5f) {
          truth_done[g] = track_done[k] = true;
          now[frame.truth[g].first] = tracks[k].id;
          break;
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
        switches_.push_back({frame.t, truth.first, seen->second, id});
      }
      now[truth.first] = id;
      track_done[static_cast<std::size_t>(ks[static_cast<std::size_t>(col[r])])] = true;
    }
    for (bool done : track_done) figures_.false_positives += done ? 0 : 1;
    current_ = now;
    for (const auto& [g, id] : now) ever_[g] = id;
  }
  const MotFigures& figures() const { return figures_; }
  // Each id switch: when, which truth object (index into the scenario), from which track to which.
  struct Switch {
    double t;
    int truth;
    std::int64_t from;
    std::int64_t to;
  };
  const std::vector<Switch>& switches() const { return switches_; }

 private:
  MotFigures figures_;
  std::vector<Switch> switches_;
  // Each truth object's track in the previous frame, and the last one it ever had.
  std::map<int, std::int64_t> current_;
  std::map<int, std::int64_t> ever_;
};

// The shipped defaults (config/sections/tracking.cpp).
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

// A fresh tracker over every frame, scored.
inline MotFigures run_mot(const std::vector<SyntheticFrame>& frames,
                          const config::TrackingConfig& options = default_tracking()) {
  tracking::Tracker tracker(options);
  MotCounter mot;
  for (const SyntheticFrame& f : frames) {
    mot.add(f, tracker.update(f.detections, at_seconds(f.t), f.index, kSyntheticFrame).tracks);
  }
  return mot.figures();
}

inline TruthObject walker(cv::Point2f start, cv::Point2f velocity, double from_s = 0,
                          double to_s = 1e9) {
  return {0, start, velocity, 40, 90, from_s, to_s, {}};
}

// Twelve seconds of a street: people walking and cars driving across the frame both ways, two
// pairs crossing each other (one pair head-on at the same height), three hidden for up to a
// second (one of them while it crosses another), one leaving at the right and coming back. The
// one coming back is another truth object: without appearance no tracker can tell it is the
// same, so a new id there is not a switch.
inline std::vector<TruthObject> street() {
  std::vector<TruthObject> o;
  for (int i = 0; i < 6; ++i) {
    o.push_back(walker({100.0f + 40 * i, 150.0f + 80 * i}, {60.0f + 10 * i, 0}, 0.5 * i));
  }
  for (int i = 0; i < 4; ++i) {
    TruthObject car{2, {1350.0f, 200.0f + 120 * i}, {-200.0f, 10}, 140, 70, 2.0 * i, 1e9, {}};
    o.push_back(car);
  }
  o.push_back(walker({200, 600}, {100, 0}));
  o.push_back(walker({1000, 610}, {-100, 0}));
  o.push_back(walker({520, 160}, {40, 80}, 1));
  o.push_back(walker({760, 640}, {-40, -80}, 1));
  o[0].hidden = {{2.0, 3.0}};
  o[3].hidden = {{4.5, 5.2}};
  o[7].hidden = {{3.0, 3.8}};
  // Hidden for most of a second as the two walking at 600 meet (about 4 s in).
  o[10].hidden = {{3.6, 4.4}};
  o.push_back(walker({1100, 250}, {150, 0}, 0, 2.0));
  o.push_back(walker({1450, 250}, {-150, 0}, 4.0));
  return o;
}

// Two people walking into each other at the same height, crossing after about 2.7 s.
inline std::vector<TruthObject> crossing_pair() {
  return {walker({200, 300}, {150, 0}), walker({1000, 305}, {-150, 0})};
}

// `n` objects in the frame at any time (a crowd for the cost benchmark): people and cars (a share
// `cars` of them) at random places and speeds; each one that leaves is followed by another coming
// in at an edge.
inline std::vector<TruthObject> crowd(int n, double seconds, unsigned seed, float cars = 0.3f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> unit(0, 1);
  const auto w = static_cast<float>(kSyntheticFrame.width);
  const auto h = static_cast<float>(kSyntheticFrame.height);
  std::vector<TruthObject> objects;
  for (int slot = 0; slot < n; ++slot) {
    double t = 0;
    bool first = true;
    while (t < seconds) {
      TruthObject o;
      const bool car = unit(rng) < cars;
      o.class_id = car ? 2 : 0;
      o.width = car ? 120 : 40;
      o.height = car ? 60 : 90;
      const cv::Point2f target{w * (0.1f + 0.8f * unit(rng)), h * (0.1f + 0.8f * unit(rng))};
      if (first) {
        o.start = {w * unit(rng), h * unit(rng)};
      } else {
        // Just outside a random edge, heading for a point inside.
        const int edge = static_cast<int>(unit(rng) * 4) % 4;
        const float along = unit(rng);
        o.start = edge == 0   ? cv::Point2f{-o.width / 2, h * along}
                  : edge == 1 ? cv::Point2f{w + o.width / 2, h * along}
                  : edge == 2 ? cv::Point2f{w * along, -o.height / 2}
                              : cv::Point2f{w * along, h + o.height / 2};
      }
      cv::Point2f heading = target - o.start;
      if (first) heading = {unit(rng) - 0.5f, unit(rng) - 0.5f};
      const float length = std::max(std::hypot(heading.x, heading.y), 1e-3f);
      const float speed = (car ? 100.0f : 30.0f) + (car ? 200.0f : 90.0f) * unit(rng);
      o.velocity = heading * (speed / length);
      o.from_s = t;
      // Until it is out of the frame again (checked every 10 ms after it came in).
      double end = t + 0.01;
      while (end < seconds && (o.exists(end) || end - t < 1.0)) end += 0.01;
      o.to_s = end;
      objects.push_back(o);
      t = end;
      first = false;
    }
  }
  return objects;
}

}  // namespace yolo::test
