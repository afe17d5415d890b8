// SPDX-License-Identifier: Apache-2.0
#include "tracking/scene.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <type_traits>

#include "tracking/geometry.h"

namespace yolo::tracking {

namespace {

// Hours of counts kept per place: a week's.
constexpr auto kHoursKept = std::chrono::hours(7 * 24);

double seconds(SteadyTime a, SteadyTime b) {
  return std::chrono::duration<double>(b - a).count();
}

// The classes a place counts: its filter's names as the model's class ids.
struct ClassFilter {
  bool every = true;
  std::vector<int> ids;

  bool counts(int class_id) const {
    return every || std::find(ids.begin(), ids.end(), class_id) != ids.end();
  }
};

// A name the model does not have matches nothing: the config refuses one before it gets here,
// and counting every class instead would be the wrong way to fail.
ClassFilter resolve(const std::vector<std::string>& classes, const vision::ClassNames& names) {
  ClassFilter f;
  f.every = classes.empty();
  for (const std::string& c : classes) {
    const auto it = std::find(names.names().begin(), names.names().end(), c);
    if (it != names.names().end()) {
      f.ids.push_back(static_cast<int>(it - names.names().begin()));
    }
  }
  return f;
}

// Drops the hours that began a week or more before `now`.
void prune(PlaceCounts& p, std::chrono::system_clock::time_point now) {
  std::erase_if(p.hours, [&](const auto& hour) {
    const auto start = hour_start(hour.first);
    return !start || *start <= now - kHoursKept;
  });
}

void count(PlaceCounts& p, const std::string& label, bool in,
           std::chrono::system_clock::time_point wall) {
  Tally& total = p.total[label];
  Tally& hour = p.hours[local_hour(wall)][label];
  (in ? total.in : total.out) += 1;
  (in ? hour.in : hour.out) += 1;
  prune(p, wall);
}

// One track's standing in a zone.
struct Member {
  bool inside = false;
  // Since when its anchor has been on the other side than `inside` says (inertia).
  std::optional<SteadyTime> changing_since;
  // When its anchor came in: the stay's start, before inertia let the enter count.
  SteadyTime entered{};
  bool loitered = false;
};

struct ZoneState {
  config::ZoneConfig config;
  PlaceCounts counts;
  ClassFilter filter;
  std::map<std::int64_t, Member> members;
};

struct LineState {
  config::LineConfig config;
  PlaceCounts counts;
  ClassFilter filter;
  std::map<std::int64_t, LineStanding> standing;
};

cv::Point2f centre(const vision::Box& b) {
  return {(b.x1 + b.x2) / 2, (b.y1 + b.y2) / 2};
}

}  // namespace

struct Scene::State {
  std::string camera;
  vision::ClassNames names;
  std::vector<ZoneState> zones;
  std::vector<LineState> lines;
  cv::Size size;
  std::uint64_t version = 0;

  PlaceCounts fresh(const std::string& name, bool line,
                    std::chrono::system_clock::time_point since) const {
    PlaceCounts p;
    p.camera = camera;
    p.name = name;
    p.line = line;
    p.since = since;
    return p;
  }

  // The places of `configs` on this camera: each keeps its state (counts, who is where) from
  // `places` while its config is unchanged, else starts counting at `now`.
  template <typename Place, typename Config>
  std::vector<Place> configured(std::vector<Place>& places, const std::vector<Config>& configs,
                                std::chrono::system_clock::time_point now) const {
    constexpr bool line = std::is_same_v<Place, LineState>;
    std::vector<Place> next;
    for (const Config& c : configs) {
      if (c.camera != camera) continue;
      auto old =
          std::find_if(places.begin(), places.end(), [&](const Place& o) { return o.config == c; });
      Place& place = next.emplace_back(
          old != places.end() ? std::move(*old) : Place{c, fresh(c.name, line, now), {}, {}});
      // Another model may name the same classes with other ids.
      place.filter = resolve(c.classes, names);
    }
    return next;
  }
};

namespace {

// Makes the events of one frame, each kind in its own list so that they come out in order.
struct Events {
  const std::string& camera;
  const vision::ClassNames& names;
  std::chrono::system_clock::time_point wall;
  SteadyTime when;
  std::int64_t frame;
  std::vector<ObjectEvent> news, enters, crosses, loiters, leaves, ends;

  ObjectEvent& add(std::vector<ObjectEvent>& list, ObjectEventKind kind, const Track& t,
                   const std::string& place = {}, double duration_s = 0) {
    ObjectEvent& e = list.emplace_back();
    e.kind = kind;
    e.camera = camera;
    e.place = place;
    e.track_id = t.id;
    e.class_id = t.class_id;
    e.label = names.name(t.class_id);
    e.box = t.box;
    e.score = t.score;
    e.best_score = t.best_score;
    e.best_frame = t.best_frame;
    e.best_box = t.best_box;
    e.wall = wall;
    e.when = when;
    e.frame_index = frame;
    e.duration_s = duration_s;
    return e;
  }

  std::vector<ObjectEvent> in_order() {
    std::vector<ObjectEvent> out;
    for (auto* list : {&news, &enters, &crosses, &loiters, &leaves, &ends}) {
      out.insert(out.end(), std::make_move_iterator(list->begin()),
                 std::make_move_iterator(list->end()));
    }
    return out;
  }
};

}  // namespace

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
  const auto now = std::chrono::system_clock::now();
  s.zones = s.configured(s.zones, zones, now);
  s.lines = s.configured(s.lines, lines, now);
  ++s.version;
}

void Scene::restore(const Counts& counts) {
  State& s = *state_;
  const auto now = std::chrono::system_clock::now();
  for (const PlaceCounts& p : counts.places) {
    if (p.camera != s.camera) continue;
    PlaceCounts* into = nullptr;
    if (p.line) {
      for (LineState& l : s.lines) {
        if (l.config.name == p.name) into = &l.counts;
      }
    } else {
      for (ZoneState& z : s.zones) {
        if (z.config.name == p.name) into = &z.counts;
      }
    }
    if (!into) continue;
    *into = p;
    prune(*into, now);
  }
  ++s.version;
}

std::vector<ObjectEvent> Scene::update(const TrackUpdate& update, cv::Size frame,
                                       std::chrono::system_clock::time_point wall, SteadyTime when,
                                       std::int64_t frame_index) {
  State& s = *state_;
  if (frame != s.size) {
    // Another resolution: a line's standings are pixels of the old frame, and a path from there
    // to here would be a phantom crossing. Zone memberships do not depend on the resolution, and
    // the tracks ended now (the tracker ends every track then) still leave their zones.
    for (LineState& l : s.lines) l.standing.clear();
    s.size = frame;
  }
  Events ev{s.camera, s.names, wall, when, frame_index, {}, {}, {}, {}, {}, {}};
  for (std::int64_t id : update.confirmed) {
    const auto t = std::find_if(update.tracks.begin(), update.tracks.end(),
                                [&](const Track& x) { return x.id == id; });
    if (t != update.tracks.end()) ev.add(ev.news, ObjectEventKind::kNew, *t);
  }
  for (ZoneState& z : s.zones) {
    const std::string& name = z.config.name;
    std::vector<cv::Point2f> polygon;
    for (const auto& p : z.config.points) polygon.push_back(place(p, frame));
    for (const Track& t : update.tracks) {
      if (!z.filter.counts(t.class_id)) continue;
      Member& m = z.members[t.id];
      // Only where a detection put it moves it (a prediction through a miss may drift): unseen,
      // it stays on the side it was last seen on.
      const bool last_seen_in = m.changing_since ? !m.inside : m.inside;
      const bool in = t.seen ? inside(polygon, anchor_point(t.box, z.config.anchor)) : last_seen_in;
      if (in == m.inside) {
        m.changing_since.reset();
      } else {
        if (!m.changing_since) m.changing_since = when;
        if (seconds(*m.changing_since, when) >= z.config.inertia_s) {
          m.inside = in;
          if (in) {
            m.entered = *m.changing_since;
            m.loitered = false;
            ev.add(ev.enters, ObjectEventKind::kEnter, t, name);
          } else {
            ev.add(ev.leaves, ObjectEventKind::kLeave, t, name,
                   seconds(m.entered, *m.changing_since));
          }
          m.changing_since.reset();
          count(z.counts, s.names.name(t.class_id), in, wall);
          ++s.version;
        }
      }
      if (m.inside && z.config.loiter_s > 0 && !m.loitered &&
          seconds(m.entered, when) >= z.config.loiter_s) {
        m.loitered = true;
        ev.add(ev.loiters, ObjectEventKind::kLoiter, t, name, seconds(m.entered, when));
      }
    }
    for (const Track& t : update.ended) {
      const auto it = z.members.find(t.id);
      if (it == z.members.end()) continue;
      if (it->second.inside) {
        ev.add(ev.leaves, ObjectEventKind::kLeave, t, name,
               std::max(0.0, seconds(it->second.entered, t.last_seen)));
        count(z.counts, s.names.name(t.class_id), false, wall);
        ++s.version;
      }
      z.members.erase(it);
    }
  }
  const float diagonal =
      std::hypot(static_cast<float>(frame.width), static_cast<float>(frame.height));
  for (LineState& l : s.lines) {
    const PlacedLine line(place(l.config.from, frame), place(l.config.to, frame), l.config.in,
                          static_cast<float>(l.config.hysteresis) * diagonal);
    for (const Track& t : update.tracks) {
      // Only detections move an anchor across a line: a prediction through a miss is a guess.
      if (!t.seen || !l.filter.counts(t.class_id)) continue;
      const cv::Point2f p = anchor_point(t.box, l.config.anchor);
      const auto [it, fresh] = l.standing.try_emplace(t.id);
      std::vector<Direction> crossed;
      if (fresh) {
        // A track is reported once confirmed, a few frames after it was first seen: its path
        // until then (its trail of box centres, moved to the anchor) counts too.
        const cv::Point2f offset = p - centre(t.box);
        for (const cv::Point2f& c : t.trail) {
          if (const auto d = line.advance(it->second, c + offset)) crossed.push_back(*d);
        }
      }
      if (const auto d = line.advance(it->second, p)) crossed.push_back(*d);
      for (const Direction d : crossed) {
        ev.add(ev.crosses, ObjectEventKind::kCross, t, l.config.name).direction = d;
        count(l.counts, s.names.name(t.class_id), d == Direction::kIn, wall);
        ++s.version;
      }
    }
    for (const Track& t : update.ended) l.standing.erase(t.id);
  }
  for (const Track& t : update.ended) {
    ev.add(ev.ends, ObjectEventKind::kEnd, t, {},
           std::max(0.0, seconds(t.first_seen, t.last_seen)));
  }
  return ev.in_order();
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
    z.counts = s.fresh(z.config.name, false, now);
    ++s.version;
    return true;
  }
  for (LineState& l : s.lines) {
    if (l.config.name != place) continue;
    l.counts = s.fresh(l.config.name, true, now);
    ++s.version;
    return true;
  }
  return false;
}

std::uint64_t Scene::version() const {
  return state_->version;
}

}  // namespace yolo::tracking
