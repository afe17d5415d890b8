// SPDX-License-Identifier: Apache-2.0
#include "tracking/tracker.h"

#include <algorithm>
#include <deque>
#include <map>
#include <utility>

#include "tracking/assignment.h"
#include "tracking/kalman.h"

namespace yolo::tracking {

namespace {

// ByteTrack's IoU floors for its second pass (low-score boxes, which must overlap well) and for
// tentative tracks.
constexpr float kLowMatchIou = 0.5f;
constexpr float kTentativeMatchIou = 0.3f;
// How long a tentative track may go unseen: two frames at 10 fps.
constexpr double kTentativeGrace = 0.25;
// How much path the trail keeps.
constexpr double kTrailSeconds = 2.0;
constexpr std::size_t kTrailMax = 60;

double seconds(SteadyTime a, SteadyTime b) {
  return std::chrono::duration<double>(b - a).count();
}

cv::Point2f centre(const vision::Box& b) {
  return {(b.x1 + b.x2) / 2, (b.y1 + b.y2) / 2};
}

struct Live {
  Track track;
  BoxFilter filter;
  bool confirmed = false;
  std::deque<SteadyTime> trail_times;
};

}  // namespace

struct Tracker::State {
  config::TrackingConfig options;
  std::vector<Live> live;
  std::int64_t next_id = 1;
  cv::Size size;
  bool started = false;
  SteadyTime last_time{};
  std::vector<Track> cleared;
  TrackUpdate out;
  // Scratch, kept between frames so a frame allocates little.
  std::vector<int> row_of_col;
  CostMatrix costs;

  void end_all() {
    for (Live& l : live) {
      if (l.confirmed) out.ended.push_back(l.track);
    }
    live.clear();
  }

  void matched(Live& l, const vision::Detection& d, SteadyTime when, std::int64_t frame) {
    l.filter.update(d.box);
    Track& t = l.track;
    t.box = l.filter.box();
    t.score = d.score;
    t.seen = true;
    t.last_seen = when;
    ++t.hits;
    t.vx = l.filter.vx();
    t.vy = l.filter.vy();
    if (d.score > t.best_score) {
      t.best_score = d.score;
      t.best_frame = frame;
      t.best_box = d.box;
    }
    t.trail.push_back(centre(t.box));
    l.trail_times.push_back(when);
    while (!l.trail_times.empty() &&
           (seconds(l.trail_times.front(), when) > kTrailSeconds || t.trail.size() > kTrailMax)) {
      l.trail_times.pop_front();
      t.trail.erase(t.trail.begin());
    }
  }

  // Matches `tracks` (indices into live) with `dets` (indices into detections) at IoU >=
  // min_iou; matched ones are removed from both lists.
  void associate(std::vector<int>& tracks, std::vector<int>& dets,
                 const vision::Detections& detections, float min_iou, SteadyTime when,
                 std::int64_t frame) {
    if (tracks.empty() || dets.empty()) return;
    costs.rows = static_cast<int>(tracks.size());
    costs.cols = static_cast<int>(dets.size());
    costs.cost.resize(tracks.size() * dets.size());
    for (std::size_t r = 0; r < tracks.size(); ++r) {
      const vision::Box& tb = live[static_cast<std::size_t>(tracks[r])].track.box;
      for (std::size_t c = 0; c < dets.size(); ++c) {
        costs.cost[r * dets.size() + c] =
            1.0f - vision::iou(tb, detections[static_cast<std::size_t>(dets[c])].box);
      }
    }
    const std::vector<int> col_of_row = assign(costs, 1.0f - min_iou, row_of_col);
    std::vector<int> left_tracks;
    for (std::size_t r = 0; r < tracks.size(); ++r) {
      const int c = col_of_row[r];
      if (c < 0) {
        left_tracks.push_back(tracks[r]);
        continue;
      }
      matched(live[static_cast<std::size_t>(tracks[r])],
              detections[static_cast<std::size_t>(dets[static_cast<std::size_t>(c)])], when, frame);
    }
    std::vector<int> left_dets;
    for (std::size_t c = 0; c < dets.size(); ++c) {
      if (row_of_col[c] < 0) left_dets.push_back(dets[c]);
    }
    tracks.swap(left_tracks);
    dets.swap(left_dets);
  }
};

Tracker::Tracker(const config::TrackingConfig& options) : state_(std::make_unique<State>()) {
  state_->options = options;
}
Tracker::~Tracker() = default;
Tracker::Tracker(Tracker&&) noexcept = default;
Tracker& Tracker::operator=(Tracker&&) noexcept = default;

void Tracker::configure(const config::TrackingConfig& options) {
  state_->options = options;
}

void Tracker::clear() {
  State& s = *state_;
  for (Live& l : s.live) {
    if (l.confirmed) s.cleared.push_back(l.track);
  }
  s.live.clear();
}

std::size_t Tracker::live_tracks() const {
  return state_->live.size();
}

const TrackUpdate& Tracker::update(const vision::Detections& detections, SteadyTime when,
                                   std::int64_t frame_index, cv::Size frame) {
  State& s = *state_;
  const config::TrackingConfig& o = s.options;
  s.out.tracks.clear();
  s.out.confirmed.clear();
  s.out.ended.clear();
  s.out.ended.swap(s.cleared);
  if (s.started && frame != s.size) s.end_all();
  const float dt = s.started ? static_cast<float>(std::max(0.0, seconds(s.last_time, when))) : 0;
  s.size = frame;
  s.last_time = when;
  s.started = true;

  // Predict each track to this frame's time; those unseen for longer than lost_s end, and so do
  // those predicted wholly out of the frame: the object left it.
  std::vector<Live> kept;
  kept.reserve(s.live.size());
  for (Live& l : s.live) {
    if (seconds(l.track.last_seen, when) > o.lost_s) {
      if (l.confirmed) s.out.ended.push_back(l.track);
      continue;
    }
    l.filter.predict(dt);
    const vision::Box b = l.filter.box();
    if (b.x2 <= 0 || b.y2 <= 0 || b.x1 >= static_cast<float>(frame.width) ||
        b.y1 >= static_cast<float>(frame.height)) {
      if (l.confirmed) s.out.ended.push_back(l.track);
      continue;
    }
    l.track.box = b;
    l.track.vx = l.filter.vx();
    l.track.vy = l.filter.vy();
    l.track.seen = false;
    l.track.score = 0;
    kept.push_back(std::move(l));
  }
  s.live.swap(kept);

  // Per class: a track only ever takes boxes of its own class.
  std::map<int, std::vector<int>> high_by_class;
  std::map<int, std::vector<int>> low_by_class;
  for (std::size_t i = 0; i < detections.size(); ++i) {
    const vision::Detection& d = detections[i];
    if (d.score >= o.high_score) {
      high_by_class[d.class_id].push_back(static_cast<int>(i));
    } else if (d.score >= o.low_score) {
      low_by_class[d.class_id].push_back(static_cast<int>(i));
    }
  }
  std::map<int, std::pair<std::vector<int>, std::vector<int>>> tracks_by_class;
  for (std::size_t i = 0; i < s.live.size(); ++i) {
    auto& lists = tracks_by_class[s.live[i].track.class_id];
    (s.live[i].confirmed ? lists.first : lists.second).push_back(static_cast<int>(i));
  }
  std::vector<int> new_dets;
  std::vector<std::size_t> unmatched_tentative;
  for (auto& [cls, lists] : tracks_by_class) {
    auto& [confirmed, tentative] = lists;
    std::vector<int> no_dets;
    auto high_it = high_by_class.find(cls);
    std::vector<int>& high = high_it == high_by_class.end() ? no_dets : high_it->second;
    // First the confident boxes with every confirmed track (seen or lost), then the low-score
    // boxes with those still unmatched: a dip in confidence or a partial occlusion keeps the track.
    s.associate(confirmed, high, detections, static_cast<float>(o.match_iou), when, frame_index);
    if (auto low = low_by_class.find(cls); low != low_by_class.end()) {
      s.associate(confirmed, low->second, detections, kLowMatchIou, when, frame_index);
    }
    // Tentative tracks only with confident boxes. One unseen for longer than a short grace was
    // noise: ByteTrack drops it at its first miss, which at a low frame rate with missed
    // detections keeps real objects from ever being confirmed.
    s.associate(tentative, high, detections, kTentativeMatchIou, when, frame_index);
    for (int t : tentative) {
      if (seconds(s.live[static_cast<std::size_t>(t)].track.last_seen, when) > kTentativeGrace) {
        unmatched_tentative.push_back(static_cast<std::size_t>(t));
      }
    }
  }
  for (auto& [cls, high] : high_by_class) {
    // Classes with tracks had theirs matched above (and trimmed in place).
    new_dets.insert(new_dets.end(), high.begin(), high.end());
  }
  if (!unmatched_tentative.empty()) {
    std::sort(unmatched_tentative.rbegin(), unmatched_tentative.rend());
    for (std::size_t i : unmatched_tentative) s.live.erase(s.live.begin() + static_cast<long>(i));
  }
  // New tracks from the confident boxes nothing took, in the order detected.
  std::sort(new_dets.begin(), new_dets.end());
  for (int i : new_dets) {
    const vision::Detection& d = detections[static_cast<std::size_t>(i)];
    if (d.score < o.new_score) continue;
    Live l{Track{}, BoxFilter(d.box), false, {}};
    l.track.id = s.next_id++;
    l.track.class_id = d.class_id;
    l.track.first_seen = when;
    s.matched(l, d, when, frame_index);
    s.live.push_back(std::move(l));
  }
  for (Live& l : s.live) {
    if (!l.confirmed && l.track.hits >= o.confirm_frames) {
      l.confirmed = true;
      s.out.confirmed.push_back(l.track.id);
    }
    if (l.confirmed) s.out.tracks.push_back(l.track);
  }
  std::sort(s.out.tracks.begin(), s.out.tracks.end(),
            [](const Track& a, const Track& b) { return a.id < b.id; });
  return s.out;
}

}  // namespace yolo::tracking
