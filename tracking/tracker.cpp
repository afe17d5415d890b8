// SPDX-License-Identifier: Apache-2.0
#include "tracking/tracker.h"

#include <algorithm>
#include <utility>

#include "tracking/assignment.h"
#include "tracking/kalman.h"

namespace yolo::tracking {

namespace {

// ByteTrack's IoU floors for its second pass (low-score boxes, which must overlap well) and for
// tentative tracks.
constexpr float kLowMatchIou = 0.5f;
constexpr float kTentativeMatchIou = 0.3f;
// A tentative track has no velocity yet: its box stays where it was seen while the object moves
// on, and a car crossing the frame at 5 processed frames a second (a Pi's rate on a 30 fps
// camera) no longer overlaps its last box. Both boxes are widened on each side before the IoU is
// taken (Yang et al.'s buffered IoU, C-BIoU, 2023), by a share of their size that grows with the
// time since the track was seen: 2 box sizes a second (a near car's pace), at most half. At 30
// fps that is 7%, so false boxes landing near each other rarely make a track.
constexpr float kBufferPerSecond = 2.0f;
constexpr float kMaxBuffer = 0.5f;
// How long a tentative track may go unseen before it is dropped as noise. ByteTrack drops it at
// its first miss; with 20% of boxes missed that keeps a real object unconfirmed for longer (the
// synthetic street at 10 fps, bench_tracking: 40-80% more misses, MOTA 0.942 instead of 0.959,
// 0.883 instead of 0.934 with the noisiest scores). A quarter second forgives two frames at
// 10 fps, seven at 30: in seconds, like everything else here.
constexpr double kTentativeGrace = 0.25;
// How much path the trail keeps.
constexpr double kTrailSeconds = 2.0;
constexpr std::size_t kTrailMax = 60;

vision::Box widened(const vision::Box& b, float share) {
  const float dx = b.width() * share;
  const float dy = b.height() * share;
  return {b.x1 - dx, b.y1 - dy, b.x2 + dx, b.y2 + dy};
}

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
  // Set when it ends this frame (removed before the frame's report).
  bool gone = false;
  // When each trail point was taken (track.trail's times).
  std::vector<SteadyTime> trail_times;
};

}  // namespace

struct Tracker::State {
  config::TrackingConfig options;
  // Alive, in id order (new tracks go at the end, removal keeps the order).
  std::vector<Live> live;
  std::int64_t next_id = 1;
  cv::Size size;
  bool started = false;
  SteadyTime last_time{};
  std::vector<Track> cleared;
  TrackUpdate out;
  // Tracks in out.ended this frame (the rest of its elements are kept for their storage).
  std::size_t ended = 0;
  // Scratch kept between frames: a frame allocates only when it has more boxes or tracks than
  // any before.
  std::vector<int> dets_by_class, tracks_by_class;
  std::vector<int> high, low, confirmed, tentative, fresh;
  CostMatrix costs;
  Assigner assigner;
  // Trails of dropped tracks, emptied, for new ones to take: no more of them than tracks were
  // ever alive at once.
  std::vector<std::vector<cv::Point2f>> spare_trails;
  std::vector<std::vector<SteadyTime>> spare_times;

  // Reported tracks no report holds now, with their trails' storage.
  std::vector<Track> spare_reports;

  // Copies `track` into reports[n] (growing it by one when n is its size) and returns n + 1.
  // Each report's trail has room for the longest trail, so copying into it never allocates.
  std::size_t report(std::vector<Track>& reports, std::size_t n, const Track& track) {
    if (n == reports.size()) {
      if (spare_reports.empty()) {
        reports.emplace_back().trail.reserve(kTrailMax + 1);
      } else {
        reports.push_back(std::move(spare_reports.back()));
        spare_reports.pop_back();
      }
    }
    reports[n] = track;
    return n + 1;
  }

  // Shortens reports to n, keeping the rest for later reports.
  void trim(std::vector<Track>& reports, std::size_t n) {
    while (reports.size() > n) {
      spare_reports.push_back(std::move(reports.back()));
      reports.pop_back();
    }
  }

  void end(Live& l) {
    if (l.confirmed && !l.gone) ended = report(out.ended, ended, l.track);
    l.gone = true;
  }

  void drop_gone() {
    for (Live& l : live) {
      if (!l.gone) continue;
      l.track.trail.clear();
      l.trail_times.clear();
      spare_trails.push_back(std::move(l.track.trail));
      spare_times.push_back(std::move(l.trail_times));
    }
    live.erase(std::remove_if(live.begin(), live.end(), [](const Live& l) { return l.gone; }),
               live.end());
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
    std::size_t old = 0;
    while (old < l.trail_times.size() && (seconds(l.trail_times[old], when) > kTrailSeconds ||
                                          l.trail_times.size() - old > kTrailMax)) {
      ++old;
    }
    const auto drop = static_cast<std::ptrdiff_t>(old);
    l.trail_times.erase(l.trail_times.begin(), l.trail_times.begin() + drop);
    t.trail.erase(t.trail.begin(), t.trail.begin() + drop);
  }

  // Matches `tracks` (indices into live) with `dets` (indices into detections) at IoU >=
  // min_iou (`buffered`: both boxes widened by the time the track went unseen) by an optimal
  // assignment on 1 - IoU; the matched ones leave both lists.
  void associate(std::vector<int>& tracks, std::vector<int>& dets,
                 const vision::Detections& detections, float min_iou, SteadyTime when,
                 std::int64_t frame, bool buffered = false) {
    if (tracks.empty() || dets.empty()) return;
    costs.rows = static_cast<int>(tracks.size());
    costs.cols = static_cast<int>(dets.size());
    costs.cost.resize(tracks.size() * dets.size());
    for (std::size_t r = 0; r < tracks.size(); ++r) {
      const Track& track = live[static_cast<std::size_t>(tracks[r])].track;
      const float buffer =
          buffered ? std::min(kMaxBuffer,
                              kBufferPerSecond * static_cast<float>(seconds(track.last_seen, when)))
                   : 0.0f;
      const vision::Box tb = widened(track.box, buffer);
      for (std::size_t c = 0; c < dets.size(); ++c) {
        costs.cost[r * dets.size() + c] =
            1.0f -
            vision::iou(tb, widened(detections[static_cast<std::size_t>(dets[c])].box, buffer));
      }
    }
    assigner.solve(costs, 1.0f - min_iou);
    const std::vector<int>& col_of_row = assigner.col_of_row();
    const std::vector<int>& row_of_col = assigner.row_of_col();
    std::size_t kept = 0;
    for (std::size_t r = 0; r < tracks.size(); ++r) {
      const int c = col_of_row[r];
      if (c < 0) {
        tracks[kept++] = tracks[r];
        continue;
      }
      matched(live[static_cast<std::size_t>(tracks[r])],
              detections[static_cast<std::size_t>(dets[static_cast<std::size_t>(c)])], when, frame);
    }
    tracks.resize(kept);
    kept = 0;
    for (std::size_t c = 0; c < dets.size(); ++c) {
      if (row_of_col[c] < 0) dets[kept++] = dets[c];
    }
    dets.resize(kept);
  }

  // ByteTrack's passes for one class: `d` and `t` index this class's run of dets_by_class and
  // tracks_by_class.
  void associate_class(std::size_t d, std::size_t d_end, std::size_t t, std::size_t t_end,
                       const vision::Detections& detections, SteadyTime when, std::int64_t frame) {
    high.clear();
    low.clear();
    for (; d < d_end; ++d) {
      const int i = dets_by_class[d];
      const float score = detections[static_cast<std::size_t>(i)].score;
      if (score >= options.high_score) {
        high.push_back(i);
      } else if (score >= options.low_score) {
        low.push_back(i);
      }
    }
    confirmed.clear();
    tentative.clear();
    for (; t < t_end; ++t) {
      const int i = tracks_by_class[t];
      (live[static_cast<std::size_t>(i)].confirmed ? confirmed : tentative).push_back(i);
    }
    // The confident boxes with every confirmed track (seen or lost), then the low-score ones with
    // those still unmatched: a dip in confidence or a partial occlusion keeps the track. Tentative
    // tracks only take confident boxes.
    associate(confirmed, high, detections, static_cast<float>(options.match_iou), when, frame);
    associate(confirmed, low, detections, kLowMatchIou, when, frame);
    // Tentative tracks first as ByteTrack does, then with widened boxes for what is left
    // (C-BIoU's two stages): the plain IoU decides wherever it can. Confirmed tracks are not
    // widened: their filter predicts them, and widening lets two people crossing swap ids.
    associate(tentative, high, detections, kTentativeMatchIou, when, frame);
    associate(tentative, high, detections, kTentativeMatchIou, when, frame, true);
    for (int i : tentative) {
      Live& l = live[static_cast<std::size_t>(i)];
      if (seconds(l.track.last_seen, when) > kTentativeGrace) l.gone = true;
    }
    for (int i : high) {
      if (detections[static_cast<std::size_t>(i)].score >= options.new_score) fresh.push_back(i);
    }
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
  s.out.confirmed.clear();
  s.ended = 0;
  for (const Track& t : s.cleared) s.ended = s.report(s.out.ended, s.ended, t);
  s.cleared.clear();
  if (s.started && frame != s.size) {
    for (Live& l : s.live) s.end(l);
    s.drop_gone();
  }
  const float dt = s.started ? static_cast<float>(std::max(0.0, seconds(s.last_time, when))) : 0;
  s.size = frame;
  s.last_time = when;
  s.started = true;

  // Predict each track to this frame's time; those unseen for longer than lost_s end, and so do
  // those predicted wholly out of the frame: the object left it.
  for (Live& l : s.live) {
    if (seconds(l.track.last_seen, when) > s.options.lost_s) {
      s.end(l);
      continue;
    }
    l.filter.predict(dt);
    const vision::Box b = l.filter.box();
    if (b.x2 <= 0 || b.y2 <= 0 || b.x1 >= static_cast<float>(frame.width) ||
        b.y1 >= static_cast<float>(frame.height)) {
      s.end(l);
      continue;
    }
    l.track.box = b;
    l.track.vx = l.filter.vx();
    l.track.vy = l.filter.vy();
    l.track.seen = false;
    l.track.score = 0;
  }
  s.drop_gone();

  // Per class: a track only ever takes boxes of its own class. Detections and tracks sorted by
  // class, then each class's runs associated on their own.
  const auto class_of_det = [&](int i) { return detections[static_cast<std::size_t>(i)].class_id; };
  const auto class_of_track = [&](int i) {
    return s.live[static_cast<std::size_t>(i)].track.class_id;
  };
  s.dets_by_class.resize(detections.size());
  for (std::size_t i = 0; i < detections.size(); ++i) s.dets_by_class[i] = static_cast<int>(i);
  std::sort(s.dets_by_class.begin(), s.dets_by_class.end(), [&](int a, int b) {
    return std::pair(class_of_det(a), a) < std::pair(class_of_det(b), b);
  });
  s.tracks_by_class.resize(s.live.size());
  for (std::size_t i = 0; i < s.live.size(); ++i) s.tracks_by_class[i] = static_cast<int>(i);
  std::sort(s.tracks_by_class.begin(), s.tracks_by_class.end(), [&](int a, int b) {
    return std::pair(class_of_track(a), a) < std::pair(class_of_track(b), b);
  });
  s.fresh.clear();
  std::size_t d = 0, t = 0;
  while (d < s.dets_by_class.size() || t < s.tracks_by_class.size()) {
    const bool has_det = d < s.dets_by_class.size();
    const bool has_track = t < s.tracks_by_class.size();
    const int cls = !has_track ? class_of_det(s.dets_by_class[d])
                    : !has_det ? class_of_track(s.tracks_by_class[t])
                               : std::min(class_of_det(s.dets_by_class[d]),
                                          class_of_track(s.tracks_by_class[t]));
    std::size_t d_end = d, t_end = t;
    while (d_end < s.dets_by_class.size() && class_of_det(s.dets_by_class[d_end]) == cls) ++d_end;
    while (t_end < s.tracks_by_class.size() && class_of_track(s.tracks_by_class[t_end]) == cls) {
      ++t_end;
    }
    s.associate_class(d, d_end, t, t_end, detections, when, frame_index);
    d = d_end;
    t = t_end;
  }
  // Tentative tracks that went unseen too long are dropped, never reported.
  s.drop_gone();

  // New tracks from the confident boxes nothing took, in the order detected.
  std::sort(s.fresh.begin(), s.fresh.end());
  for (int i : s.fresh) {
    const vision::Detection& det = detections[static_cast<std::size_t>(i)];
    Live& l = s.live.emplace_back(Live{Track{}, BoxFilter(det.box), false, false, {}});
    l.track.id = s.next_id++;
    l.track.class_id = det.class_id;
    l.track.first_seen = when;
    if (s.spare_trails.empty()) {
      l.track.trail.reserve(kTrailMax + 1);
      l.trail_times.reserve(kTrailMax + 1);
    } else {
      l.track.trail = std::move(s.spare_trails.back());
      l.trail_times = std::move(s.spare_times.back());
      s.spare_trails.pop_back();
      s.spare_times.pop_back();
    }
    s.matched(l, det, when, frame_index);
  }

  // Report the confirmed ones (live is in id order).
  std::size_t n = 0;
  for (Live& l : s.live) {
    if (!l.confirmed && l.track.hits >= s.options.confirm_frames) {
      l.confirmed = true;
      s.out.confirmed.push_back(l.track.id);
    }
    if (l.confirmed) n = s.report(s.out.tracks, n, l.track);
  }
  s.trim(s.out.tracks, n);
  s.trim(s.out.ended, s.ended);
  return s.out;
}

}  // namespace yolo::tracking
