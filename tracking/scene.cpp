// SPDX-License-Identifier: Apache-2.0
#include "tracking/scene.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "tracking/geometry.h"

namespace yolo::tracking {

namespace {

// Hours of counts kept per place: a week.
constexpr std::size_t kHoursKept = 7 * 24;

double seconds(SteadyTime a, SteadyTime b) {
  return std::chrono::duration<double>(b - a).count();
}

bool counts_class(const std::vector<std::string>& classes, const std::string& label) {
  return classes.empty() || std::find(classes.begin(), classes.end(), label) != classes.end();
}

void count(PlaceCounts& p, const std::string& label, bool in,
           std::chrono::system_clock::time_point wall) {
  Tally& total = p.total[label];
  Tally& hour = p.hours[local_hour(wall)][label];
  (in ? total.in : total.out) += 1;
  (in ? hour.in : hour.out) += 1;
  while (p.hours.size() > kHoursKept) p.hours.erase(p.hours.begin());
}

// One track's standing in a zone.
struct Member {
  bool inside = false;
  // The anchor is on the other side than `inside` says since this time (inertia).
  std::optional<SteadyTime> changing_since;
  SteadyTime entered{};
  bool loitered = false;
};

struct ZoneState {
  config::ZoneConfig config;
  PlaceCounts counts;
  std::map<std::int64_t, Member> members;
};

// One track's standing against a line: the side its anchor was last clearly on, and where.
struct Committed {
  bool in_side = false;
  cv::Point2f at;
};

struct LineState {
  config::LineConfig config;
  PlaceCounts counts;
  std::map<std::int64_t, Committed> committed;
};

ObjectEvent event_of(ObjectEventKind kind, const Track& t, const std::string& camera,
                     const std::string& label, std::chrono::system_clock::time_point wall,
                     SteadyTime when, std::int64_t frame) {
  ObjectEvent e;
  e.kind = kind;
  e.camera = camera;
  e.track_id = t.id;
  e.class_id = t.class_id;
  e.label = label;
  e.box = t.box;
  e.score = t.score;
  e.best_score = t.best_score;
  e.best_frame = t.best_frame;
  e.best_box = t.best_box;
  e.wall = wall;
  e.when = when;
  e.frame_index = frame;
  return e;
}

}  // namespace

struct Scene::State {
  std::string camera;
  vision::ClassNames names;
  std::vector<ZoneState> zones;
  std::vector<LineState> lines;
  cv::Size size;
  std::uint64_t version = 0;

  PlaceCounts fresh(const std::string& name, bool line) const {
    PlaceCounts p;
    p.camera = camera;
    p.name = name;
    p.line = line;
    p.since = std::chrono::system_clock::now();
    return p;
  }

  void forget_tracks() {
    for (ZoneState& z : zones) z.members.clear();
    for (LineState& l : lines) l.committed.clear();
  }
};

Scene::Scene(std::string camera) : state_(std::make_unique<State>()) {
  state_->camera = std::move(camera);
}
Scene::~Scene() = default;
Scene::Scene(Scene&&) noexcept = default;
Scene& Scene::operator=(Scene&&) noexcept = default;

const std::string& Scene::camera() const {
  return state_->camera;
}

void Scene::configure(const std::vector<config::ZoneConfig>& zones,
                      const std::vector<config::LineConfig>& lines,
                      const vision::ClassNames& names) {
  State& s = *state_;
  s.names = names;
  std::vector<ZoneState> next_zones;
  for (const config::ZoneConfig& z : zones) {
    if (z.camera != s.camera) continue;
    auto old = std::find_if(s.zones.begin(), s.zones.end(),
                            [&](const ZoneState& o) { return o.config == z; });
    next_zones.push_back(old != s.zones.end() ? std::move(*old)
                                              : ZoneState{z, s.fresh(z.name, false), {}});
  }
  std::vector<LineState> next_lines;
  for (const config::LineConfig& l : lines) {
    if (l.camera != s.camera) continue;
    auto old = std::find_if(s.lines.begin(), s.lines.end(),
                            [&](const LineState& o) { return o.config == l; });
    next_lines.push_back(old != s.lines.end() ? std::move(*old)
                                              : LineState{l, s.fresh(l.name, true), {}});
  }
  s.zones = std::move(next_zones);
  s.lines = std::move(next_lines);
  ++s.version;
}

void Scene::restore(const Counts& counts) {
  State& s = *state_;
  for (const PlaceCounts& p : counts.places) {
    if (p.camera != s.camera) continue;
    if (p.line) {
      for (LineState& l : s.lines) {
        if (l.config.name == p.name) l.counts = p;
      }
    } else {
      for (ZoneState& z : s.zones) {
        if (z.config.name == p.name) z.counts = p;
      }
    }
  }
  ++s.version;
}

std::vector<ObjectEvent> Scene::update(const TrackUpdate& update, cv::Size frame,
                                       std::chrono::system_clock::time_point wall, SteadyTime when,
                                       std::int64_t frame_index) {
  State& s = *state_;
  if (frame != s.size) {
    // Another resolution: where a track was on the old frame says nothing on this one.
    s.forget_tracks();
    s.size = frame;
  }
  std::vector<ObjectEvent> news, enters, crosses, loiters, leaves, ends;
  const auto make = [&](ObjectEventKind kind, const Track& t) {
    return event_of(kind, t, s.camera, s.names.name(t.class_id), wall, when, frame_index);
  };
  for (std::int64_t id : update.confirmed) {
    for (const Track& t : update.tracks) {
      if (t.id == id) news.push_back(make(ObjectEventKind::kNew, t));
    }
  }
  const float diagonal =
      std::hypot(static_cast<float>(frame.width), static_cast<float>(frame.height));
  for (ZoneState& z : s.zones) {
    std::vector<cv::Point2f> polygon;
    for (const auto& p : z.config.points) polygon.push_back(place(p, frame));
    for (const Track& t : update.tracks) {
      const std::string label = s.names.name(t.class_id);
      if (!counts_class(z.config.classes, label)) continue;
      Member& m = z.members[t.id];
      const bool in = inside(polygon, anchor_point(t.box, z.config.anchor));
      if (in == m.inside) {
        m.changing_since.reset();
      } else {
        if (!m.changing_since) m.changing_since = when;
        if (seconds(*m.changing_since, when) >= z.config.inertia_s) {
          m.inside = in;
          m.changing_since.reset();
          if (in) {
            m.entered = when;
            m.loitered = false;
            enters.push_back(make(ObjectEventKind::kEnter, t));
            enters.back().place = z.config.name;
            count(z.counts, label, true, wall);
            ++s.version;
          } else {
            leaves.push_back(make(ObjectEventKind::kLeave, t));
            leaves.back().place = z.config.name;
            leaves.back().duration_s = seconds(m.entered, when);
            count(z.counts, label, false, wall);
            ++s.version;
          }
        }
      }
      if (m.inside && z.config.loiter_s > 0 && !m.loitered &&
          seconds(m.entered, when) >= z.config.loiter_s) {
        m.loitered = true;
        loiters.push_back(make(ObjectEventKind::kLoiter, t));
        loiters.back().place = z.config.name;
        loiters.back().duration_s = seconds(m.entered, when);
      }
    }
    for (const Track& t : update.ended) {
      const auto it = z.members.find(t.id);
      if (it == z.members.end()) continue;
      if (it->second.inside) {
        leaves.push_back(make(ObjectEventKind::kLeave, t));
        leaves.back().place = z.config.name;
        leaves.back().duration_s = seconds(it->second.entered, when);
        count(z.counts, s.names.name(t.class_id), false, wall);
        ++s.version;
      }
      z.members.erase(it);
    }
  }
  for (LineState& l : s.lines) {
    const PlacedLine line(place(l.config.from, frame), place(l.config.to, frame), l.config.in);
    const float margin = static_cast<float>(l.config.hysteresis) * diagonal;
    // A point this far past either end along the line still counts as at the line.
    const float slack = line.length() > 0 ? margin / line.length() : 0;
    for (const Track& t : update.tracks) {
      const std::string label = s.names.name(t.class_id);
      if (!counts_class(l.config.classes, label)) continue;
      // Within the margin (jitter on the line) or beside the segment, a point takes no side.
      const auto side_of = [&](cv::Point2f p) -> std::optional<bool> {
        const float d = line.distance(p);
        const float along = line.along(p);
        if (std::abs(d) <= margin || along < -slack || along > 1 + slack) return std::nullopt;
        return d > 0;
      };
      const cv::Point2f p = anchor_point(t.box, l.config.anchor);
      auto it = l.committed.find(t.id);
      if (it == l.committed.end()) {
        // A track is reported once confirmed, a few frames after it was first seen: where it was
        // then (its trail, the box centre moved to the anchor) is its first side, so a crossing
        // during those frames still counts.
        const cv::Point2f offset =
            p - cv::Point2f((t.box.x1 + t.box.x2) / 2, (t.box.y1 + t.box.y2) / 2);
        for (const cv::Point2f& c : t.trail) {
          if (const auto side = side_of(c + offset)) {
            it = l.committed.emplace(t.id, Committed{*side, c + offset}).first;
            break;
          }
        }
        if (it == l.committed.end()) {
          if (const auto side = side_of(p)) l.committed.emplace(t.id, Committed{*side, p});
          continue;
        }
      }
      const std::optional<bool> side = side_of(p);
      if (!side) continue;
      const bool in_side = *side;
      Committed& c = it->second;
      if (c.in_side != in_side && segments_meet(c.at, p, line.from(), line.to())) {
        crosses.push_back(make(ObjectEventKind::kCross, t));
        crosses.back().place = l.config.name;
        crosses.back().direction = in_side ? Direction::kIn : Direction::kOut;
        count(l.counts, label, in_side, wall);
        ++s.version;
      }
      c = {in_side, p};
    }
    for (const Track& t : update.ended) l.committed.erase(t.id);
  }
  for (const Track& t : update.ended) {
    ends.push_back(make(ObjectEventKind::kEnd, t));
    ends.back().duration_s = seconds(t.first_seen, t.last_seen);
  }
  std::vector<ObjectEvent> out;
  for (auto* list : {&news, &enters, &crosses, &loiters, &leaves, &ends}) {
    out.insert(out.end(), std::make_move_iterator(list->begin()),
               std::make_move_iterator(list->end()));
  }
  return out;
}

Counts Scene::counts() const {
  Counts c;
  for (const ZoneState& z : state_->zones) c.places.push_back(z.counts);
  for (const LineState& l : state_->lines) c.places.push_back(l.counts);
  return c;
}

int Scene::occupancy(std::string_view zone) const {
  for (const ZoneState& z : state_->zones) {
    if (z.config.name != zone) continue;
    return static_cast<int>(std::count_if(z.members.begin(), z.members.end(),
                                          [](const auto& m) { return m.second.inside; }));
  }
  return -1;
}

bool Scene::reset(std::string_view place, std::chrono::system_clock::time_point now) {
  State& s = *state_;
  for (ZoneState& z : s.zones) {
    if (z.config.name != place) continue;
    z.counts = s.fresh(z.config.name, false);
    z.counts.since = now;
    ++s.version;
    return true;
  }
  for (LineState& l : s.lines) {
    if (l.config.name != place) continue;
    l.counts = s.fresh(l.config.name, true);
    l.counts.since = now;
    ++s.version;
    return true;
  }
  return false;
}

std::uint64_t Scene::version() const {
  return state_->version;
}

}  // namespace yolo::tracking
