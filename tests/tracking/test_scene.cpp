// SPDX-License-Identifier: Apache-2.0
// Zones and lines into events and counts (tracking/scene.cpp), driven by hand-made track updates.
#include "tracking/scene.h"

#include <gtest/gtest.h>

#include "tests/tracking/synthetic.h"

namespace yolo::tracking {
namespace {

using test::at_seconds;

const cv::Size kFrame{1000, 1000};
const vision::ClassNames kNames({"person", "bicycle", "car"});

// A person whose bottom centre is at (x, y).
Track at(std::int64_t id, float x, float y, int class_id = 0) {
  Track t;
  t.id = id;
  t.class_id = class_id;
  t.box = {x - 20, y - 90, x + 20, y};
  t.seen = true;
  t.first_seen = at_seconds(0);
  return t;
}

config::ZoneConfig square_zone(double inertia = 0, double loiter = 0) {
  return {.name = "gate",
          .camera = "main",
          .points = {{0.4, 0.4}, {0.6, 0.4}, {0.6, 0.6}, {0.4, 0.6}},
          .classes = {},
          .anchor = Anchor::kBottomCenter,
          .loiter_s = loiter,
          .inertia_s = inertia};
}

config::LineConfig middle_line() {
  return {.name = "road",
          .camera = "main",
          .from = {0.1, 0.5},
          .to = {0.9, 0.5},
          .in = Side::kBelow,
          .classes = {},
          .anchor = Anchor::kBottomCenter,
          .hysteresis = 0.01};
}

// Feeds one frame of tracks at time t; returns its events.
std::vector<ObjectEvent> step(Scene& scene, std::vector<Track> tracks, double t,
                              std::vector<Track> ended = {},
                              std::vector<std::int64_t> confirmed = {}, cv::Size frame = kFrame) {
  TrackUpdate u;
  u.tracks = std::move(tracks);
  u.ended = std::move(ended);
  u.confirmed = std::move(confirmed);
  static std::int64_t index = 0;
  return scene.update(u, frame, std::chrono::system_clock::now(), at_seconds(t), index++);
}

// One frame at steady time t and wall time `wall`.
std::vector<ObjectEvent> step_at(Scene& scene, std::vector<Track> tracks, double t,
                                 std::chrono::system_clock::time_point wall) {
  TrackUpdate u;
  u.tracks = std::move(tracks);
  return scene.update(u, kFrame, wall, at_seconds(t), 0);
}

std::vector<std::string> kinds(const std::vector<ObjectEvent>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) out.emplace_back(event_kind_name(e.kind));
  return out;
}

Tally total(const Scene& scene, const std::string& place, const std::string& label = "person") {
  for (const PlaceCounts& p : scene.counts().places) {
    if (p.name == place) {
      const auto it = p.total.find(label);
      return it == p.total.end() ? Tally{} : it->second;
    }
  }
  ADD_FAILURE() << "no place " << place;
  return {};
}

TEST(Scene, NewEnterLoiterLeaveEndInOrder) {
  Scene scene("main");
  scene.configure({square_zone(0, 2)}, {}, kNames);
  EXPECT_EQ(kinds(step(scene, {at(1, 300, 300)}, 0, {}, {1})), (std::vector<std::string>{"new"}));
  const auto enter = step(scene, {at(1, 500, 500)}, 1);
  ASSERT_EQ(kinds(enter), (std::vector<std::string>{"enter"}));
  EXPECT_EQ(enter[0].place, "gate");
  EXPECT_EQ(enter[0].label, "person");
  EXPECT_EQ(scene.occupancy("gate"), 1);
  EXPECT_TRUE(step(scene, {at(1, 510, 500)}, 2).empty());
  EXPECT_EQ(kinds(step(scene, {at(1, 510, 500)}, 3.1)), (std::vector<std::string>{"loiter"}));
  EXPECT_TRUE(step(scene, {at(1, 510, 500)}, 6).empty()) << "loiter is said once per stay";
  const auto leave = step(scene, {at(1, 800, 500)}, 7);
  ASSERT_EQ(kinds(leave), (std::vector<std::string>{"leave"}));
  EXPECT_NEAR(leave[0].duration_s, 6, 1e-6);
  EXPECT_EQ(scene.occupancy("gate"), 0);
  Track gone = at(1, 800, 500);
  gone.last_seen = at_seconds(7);
  const auto end = step(scene, {}, 9, {gone});
  ASSERT_EQ(kinds(end), (std::vector<std::string>{"end"}));
  EXPECT_EQ(total(scene, "gate"), (Tally{1, 1}));
  EXPECT_EQ(scene.occupancy("nowhere"), -1);
}

TEST(Scene, InertiaIgnoresABoxFlickeringOnTheEdge) {
  Scene scene("main");
  scene.configure({square_zone(0.5)}, {}, kNames);
  // In and out of the zone every 0.2 s: never long enough on one side.
  for (int i = 0; i < 20; ++i) {
    EXPECT_TRUE(step(scene, {at(1, i % 2 ? 405.0f : 395.0f, 500)}, i * 0.2).empty()) << i;
  }
  EXPECT_EQ(kinds(step(scene, {at(1, 450, 500)}, 4.1)), std::vector<std::string>{});
  EXPECT_EQ(kinds(step(scene, {at(1, 450, 500)}, 4.7)), (std::vector<std::string>{"enter"}));
}

TEST(Scene, ATrackThatEndsInsideAZoneLeavesIt) {
  Scene scene("main");
  scene.configure({square_zone()}, {}, kNames);
  step(scene, {at(4, 500, 500)}, 0);
  Track gone = at(4, 500, 500);
  gone.last_seen = at_seconds(0);
  EXPECT_EQ(kinds(step(scene, {}, 2, {gone})), (std::vector<std::string>{"leave", "end"}));
  EXPECT_EQ(scene.occupancy("gate"), 0);
}

TEST(Scene, ALineCountsEachCrossingOnceInBothDirections) {
  Scene scene("main");
  scene.configure({}, {middle_line()}, kNames);
  double t = 0;
  // Down through the line (in), back up (out), down again (in).
  for (float y : {400.0f, 450.0f, 520.0f, 600.0f, 520.0f, 450.0f, 400.0f, 480.0f, 530.0f}) {
    for (const auto& e : step(scene, {at(1, 500, y)}, t += 0.1)) {
      EXPECT_EQ(e.kind, ObjectEventKind::kCross);
      EXPECT_EQ(e.place, "road");
    }
  }
  EXPECT_EQ(total(scene, "road"), (Tally{2, 1}));
}

TEST(Scene, JitterOnTheLineCountsNothing) {
  Scene scene("main");
  scene.configure({}, {middle_line()}, kNames);
  step(scene, {at(1, 500, 440)}, 0);
  // +-8 px around the line (hysteresis: 1% of the 1414 px diagonal, 14 px).
  for (int i = 0; i < 50; ++i) step(scene, {at(1, 500, i % 2 ? 508.0f : 492.0f)}, 0.1 * i);
  EXPECT_EQ(total(scene, "road"), (Tally{}));
}

TEST(Scene, ACrossingBetweenTwoFramesCountsButPassingBesideTheEndDoesNot) {
  Scene scene("main");
  scene.configure({}, {middle_line()}, kNames);
  // One frame well above, the next well below: the path meets the segment.
  step(scene, {at(1, 500, 200)}, 0);
  EXPECT_EQ(kinds(step(scene, {at(1, 500, 800)}, 0.1)), (std::vector<std::string>{"cross"}));
  // Beside the line's end (x = 950 > 900): down and up, nothing.
  step(scene, {at(2, 950, 300)}, 0.2);
  step(scene, {at(2, 950, 700)}, 0.3);
  // Round the end: from above at x 880, to below at x 990 through a point beside the end.
  step(scene, {at(3, 880, 450)}, 0.4);
  step(scene, {at(3, 990, 600)}, 0.5);
  EXPECT_EQ(total(scene, "road"), (Tally{1, 0}));
}

TEST(Scene, ACrossingDuringATracksFirstFramesCountsFromItsTrail) {
  Scene scene("main");
  scene.configure({}, {middle_line()}, kNames);
  // Confirmed already below the line, but its trail (box centres) began above it.
  Track t = at(1, 500, 560);
  t.trail = {{500, 380}, {500, 420}, {500, 470}};
  EXPECT_EQ(kinds(step(scene, {t}, 0, {}, {1})), (std::vector<std::string>{"new", "cross"}));
  EXPECT_EQ(total(scene, "road"), (Tally{1, 0}));
}

TEST(Scene, ClassFiltersByName) {
  Scene scene("main");
  config::LineConfig cars = middle_line();
  cars.classes = {"car"};
  scene.configure({}, {cars}, kNames);
  step(scene, {at(1, 300, 400), at(2, 600, 400, 2)}, 0);
  step(scene, {at(1, 300, 600), at(2, 600, 600, 2)}, 0.1);
  EXPECT_EQ(total(scene, "road", "car"), (Tally{1, 0}));
  EXPECT_EQ(total(scene, "road", "person"), (Tally{}));
}

TEST(Scene, ANewFrameSizeMakesNoPhantomCrossing) {
  Scene scene("main");
  scene.configure({}, {middle_line()}, kNames);
  step(scene, {at(1, 500, 450)}, 0);
  // The camera comes back at half the size: the same pixels are now below the line.
  step(scene, {at(1, 250, 450)}, 0.1, {}, {}, {500, 500});
  step(scene, {at(1, 250, 455)}, 0.2, {}, {}, {500, 500});
  EXPECT_EQ(total(scene, "road"), (Tally{}));
}

TEST(Scene, AReloadThatChangesOneZoneKeepsTheOthersCounts) {
  Scene scene("main");
  config::ZoneConfig other = square_zone();
  other.name = "yard";
  scene.configure({square_zone(), other}, {middle_line()}, kNames);
  step(scene, {at(1, 500, 400)}, 0);
  step(scene, {at(1, 500, 520)}, 0.1);
  ASSERT_EQ(total(scene, "gate"), (Tally{1, 0}));
  ASSERT_EQ(total(scene, "yard"), (Tally{1, 0}));
  ASSERT_EQ(total(scene, "road"), (Tally{1, 0}));
  config::ZoneConfig moved = other;
  moved.points[0].x = 0.3;
  const std::uint64_t before = scene.version();
  scene.configure({square_zone(), moved}, {middle_line()}, kNames);
  EXPECT_GT(scene.version(), before);
  EXPECT_EQ(total(scene, "gate"), (Tally{1, 0}));
  EXPECT_EQ(total(scene, "road"), (Tally{1, 0}));
  EXPECT_EQ(total(scene, "yard"), (Tally{})) << "a changed zone starts again";
  // The person still inside the kept zone does not enter it again; the changed zone is new to
  // them; and the line remembers their side (back up across it counts out).
  const auto events = step(scene, {at(1, 500, 530)}, 0.2);
  ASSERT_EQ(kinds(events), (std::vector<std::string>{"enter"}));
  EXPECT_EQ(events[0].place, "yard");
  EXPECT_EQ(scene.occupancy("gate"), 1);
  step(scene, {at(1, 500, 300)}, 0.3);
  EXPECT_EQ(total(scene, "road"), (Tally{1, 1}));
  EXPECT_EQ(total(scene, "gate"), (Tally{1, 1}));
}

TEST(Scene, RestoredCountsGoOnAndResetStartsAgain) {
  Scene first("main");
  first.configure({}, {middle_line()}, kNames);
  step(first, {at(1, 500, 400)}, 0);
  step(first, {at(1, 500, 600)}, 0.1);
  const Counts kept = first.counts();

  Scene second("main");
  second.configure({}, {middle_line()}, kNames);
  second.restore(kept);
  step(second, {at(7, 500, 400)}, 0);
  step(second, {at(7, 500, 600)}, 0.1);
  EXPECT_EQ(total(second, "road"), (Tally{2, 0}));
  EXPECT_EQ(second.counts().places[0].since, kept.places[0].since);

  const auto now = std::chrono::system_clock::now();
  EXPECT_TRUE(second.reset("road", now));
  EXPECT_EQ(total(second, "road"), (Tally{}));
  EXPECT_EQ(second.counts().places[0].since, now);
  EXPECT_FALSE(second.reset("nowhere", now));
}

TEST(Scene, OtherCamerasPlacesAreIgnored) {
  Scene scene("main");
  config::LineConfig elsewhere = middle_line();
  elsewhere.camera = "garage";
  scene.configure({}, {elsewhere}, kNames);
  EXPECT_TRUE(scene.counts().places.empty());
}

TEST(Scene, CountsByLocalHour) {
  Scene scene("main");
  scene.configure({}, {middle_line()}, kNames);
  step(scene, {at(1, 500, 400)}, 0);
  step(scene, {at(1, 500, 600)}, 0.1);
  const PlaceCounts p = scene.counts().places.at(0);
  ASSERT_EQ(p.hours.size(), 1u);
  EXPECT_EQ(p.hours.begin()->first, local_hour(std::chrono::system_clock::now()));
  EXPECT_EQ(p.hours.begin()->second.at("person"), (Tally{1, 0}));
}

TEST(Scene, OccupancyIsTheTracksInsideNow) {
  Scene scene("main");
  scene.configure({square_zone()}, {}, kNames);
  step(scene, {at(1, 450, 500), at(2, 550, 500), at(3, 200, 200)}, 0);
  EXPECT_EQ(scene.occupancy("gate"), 2);
  step(scene, {at(1, 450, 500), at(2, 750, 500), at(3, 500, 500)}, 0.1);
  EXPECT_EQ(scene.occupancy("gate"), 2);
  step(scene, {at(1, 150, 500), at(2, 750, 500), at(3, 150, 500)}, 0.2);
  EXPECT_EQ(scene.occupancy("gate"), 0);
  EXPECT_EQ(total(scene, "gate"), (Tally{3, 3}));
}

TEST(Scene, InertiaTimesTheStayFromWhenTheAnchorCameInAndWentOut) {
  Scene scene("main");
  scene.configure({square_zone(0.5)}, {}, kNames);
  step(scene, {at(1, 200, 500)}, 0);
  EXPECT_TRUE(step(scene, {at(1, 500, 500)}, 1).empty());
  EXPECT_EQ(kinds(step(scene, {at(1, 500, 500)}, 1.6)), (std::vector<std::string>{"enter"}));
  // Out for 0.3 s and back: still the same stay.
  EXPECT_TRUE(step(scene, {at(1, 200, 500)}, 3).empty());
  EXPECT_TRUE(step(scene, {at(1, 500, 500)}, 3.3).empty());
  EXPECT_TRUE(step(scene, {at(1, 200, 500)}, 5).empty());
  const auto leave = step(scene, {at(1, 200, 500)}, 5.6);
  ASSERT_EQ(kinds(leave), (std::vector<std::string>{"leave"}));
  EXPECT_NEAR(leave[0].duration_s, 4, 1e-6) << "in from 1 s until out at 5 s";
}

TEST(Scene, LoiterIsSaidOncePerStay) {
  Scene scene("main");
  scene.configure({square_zone(0, 1)}, {}, kNames);
  std::vector<std::string> all;
  double t = 0;
  for (float x : {500.0f, 500.0f, 500.0f, 500.0f, 200.0f, 500.0f, 500.0f, 500.0f}) {
    for (const auto& k : kinds(step(scene, {at(1, x, 500)}, t))) all.push_back(k);
    t += 0.6;
  }
  EXPECT_EQ(all, (std::vector<std::string>{"enter", "loiter", "leave", "enter", "loiter"}));
}

TEST(Scene, APredictionThroughAMissMovesNothing) {
  Scene scene("main");
  scene.configure({square_zone()}, {middle_line()}, kNames);
  step(scene, {at(1, 300, 400)}, 0);
  // Predicted (unseen) into the zone and across the line, then the track ends.
  Track predicted = at(1, 500, 560);
  predicted.seen = false;
  EXPECT_TRUE(step(scene, {predicted}, 0.1).empty());
  EXPECT_EQ(scene.occupancy("gate"), 0);
  Track gone = predicted;
  gone.last_seen = at_seconds(0);
  EXPECT_EQ(kinds(step(scene, {}, 2, {gone})), (std::vector<std::string>{"end"}));
  EXPECT_EQ(total(scene, "road"), (Tally{}));
  EXPECT_EQ(total(scene, "gate"), (Tally{}));

  // Seen again on the other side after a miss: the crossing counts then.
  step(scene, {at(2, 300, 400)}, 3);
  predicted.id = 2;
  step(scene, {predicted}, 3.1);
  EXPECT_EQ(kinds(step(scene, {at(2, 300, 600)}, 3.2)), (std::vector<std::string>{"cross"}));
  EXPECT_EQ(total(scene, "road"), (Tally{1, 0}));
}

TEST(Scene, TracksEndedByAFrameSizeChangeStillLeaveTheirZones) {
  Scene scene("main");
  scene.configure({square_zone()}, {middle_line()}, kNames);
  step(scene, {at(1, 500, 540)}, 0);
  ASSERT_EQ(scene.occupancy("gate"), 1);
  // The tracker ends every track when the frame size changes, in that frame's update.
  Track gone = at(1, 500, 540);
  gone.last_seen = at_seconds(0);
  const auto events = step(scene, {}, 0.1, {gone}, {}, {640, 480});
  EXPECT_EQ(kinds(events), (std::vector<std::string>{"leave", "end"}));
  EXPECT_EQ(scene.occupancy("gate"), 0);
  EXPECT_EQ(total(scene, "gate"), (Tally{1, 1}));
}

TEST(Scene, AClassNameTheModelLacksMatchesNothing) {
  Scene scene("main");
  config::LineConfig unknown = middle_line();
  unknown.classes = {"unicorn"};
  config::LineConfig also_cars = middle_line();
  also_cars.name = "cars";
  also_cars.classes = {"unicorn", "car"};
  scene.configure({}, {unknown, also_cars}, kNames);
  step(scene, {at(1, 300, 400), at(2, 600, 400, 2)}, 0);
  step(scene, {at(1, 300, 600), at(2, 600, 600, 2)}, 0.1);
  EXPECT_EQ(total(scene, "road", "person"), (Tally{}));
  EXPECT_EQ(total(scene, "road", "car"), (Tally{}));
  EXPECT_EQ(total(scene, "cars", "car"), (Tally{1, 0}));
  EXPECT_EQ(total(scene, "cars", "person"), (Tally{}));
}

TEST(Scene, ClassFiltersFollowAnotherModelsIds) {
  Scene scene("main");
  config::LineConfig cars = middle_line();
  cars.classes = {"car"};
  scene.configure({}, {cars}, kNames);
  // Another model where class 0 is a car: the unchanged line keeps its counts and counts class 0.
  const vision::ClassNames other({"car", "person"});
  scene.configure({}, {cars}, other);
  step(scene, {at(1, 300, 400, 0), at(2, 600, 400, 1)}, 0);
  step(scene, {at(1, 300, 600, 0), at(2, 600, 600, 1)}, 0.1);
  EXPECT_EQ(total(scene, "road", "car"), (Tally{1, 0}));
  EXPECT_EQ(total(scene, "road", "person"), (Tally{}));
}

TEST(Scene, EventsCarryEveryField) {
  Scene scene("main");
  scene.configure({square_zone()}, {middle_line()}, kNames);
  Track t = at(9, 500, 380, 2);
  t.score = 0.7f;
  t.best_score = 0.9f;
  t.best_frame = 3;
  t.best_box = {1, 2, 3, 4};
  TrackUpdate u;
  u.tracks = {t};
  const auto wall = std::chrono::system_clock::time_point(std::chrono::seconds(1'800'000'000));
  scene.update(u, kFrame, wall, at_seconds(1), 10);
  t.box = {480, 450, 520, 540};
  u.tracks = {t};
  const auto events = scene.update(u, kFrame, wall + std::chrono::seconds(1), at_seconds(2), 11);
  ASSERT_EQ(kinds(events), (std::vector<std::string>{"enter", "cross"}));
  EXPECT_EQ(events[0].place, "gate");
  const ObjectEvent& e = events[1];
  EXPECT_EQ(e.id, 0) << "numbered by the daemon";
  EXPECT_EQ(e.camera, "main");
  EXPECT_EQ(e.place, "road");
  EXPECT_EQ(e.direction, Direction::kIn);
  EXPECT_EQ(e.track_id, 9);
  EXPECT_EQ(e.class_id, 2);
  EXPECT_EQ(e.label, "car");
  EXPECT_EQ(e.box, t.box);
  EXPECT_EQ(e.score, 0.7f);
  EXPECT_EQ(e.best_score, 0.9f);
  EXPECT_EQ(e.best_frame, 3);
  EXPECT_EQ(e.best_box, t.best_box);
  EXPECT_EQ(e.wall, wall + std::chrono::seconds(1));
  EXPECT_EQ(e.when, at_seconds(2));
  EXPECT_EQ(e.frame_index, 11);
  EXPECT_EQ(e.duration_s, 0);

  t.first_seen = at_seconds(1);
  t.last_seen = at_seconds(4.5);
  u.tracks = {};
  u.ended = {t};
  const auto ended = scene.update(u, kFrame, wall, at_seconds(6), 12);
  ASSERT_EQ(kinds(ended), (std::vector<std::string>{"leave", "end"}));
  EXPECT_EQ(ended[0].place, "gate");
  EXPECT_NEAR(ended[0].duration_s, 2.5, 1e-6) << "in at 2 s, last seen at 4.5 s";
  EXPECT_TRUE(ended[1].place.empty());
  EXPECT_NEAR(ended[1].duration_s, 3.5, 1e-6) << "seen from 1 s to 4.5 s";
}

TEST(Scene, HoursOlderThanAWeekAreDropped) {
  Scene scene("main");
  scene.configure({}, {middle_line()}, kNames);
  const auto now = std::chrono::system_clock::now();
  const auto days = [&](int n) { return now - std::chrono::hours(24 * n); };
  step_at(scene, {at(1, 500, 400)}, 0, days(8));
  step_at(scene, {at(1, 500, 600)}, 0.1, days(8));
  step_at(scene, {at(1, 500, 400)}, 0.2, days(6));
  ASSERT_EQ(scene.counts().places.at(0).hours.size(), 2u);
  step_at(scene, {at(1, 500, 600)}, 0.3, now);
  const PlaceCounts p = scene.counts().places.at(0);
  EXPECT_EQ(p.hours.size(), 2u);
  EXPECT_FALSE(p.hours.contains(local_hour(days(8))));
  EXPECT_TRUE(p.hours.contains(local_hour(days(6))));
  EXPECT_TRUE(p.hours.contains(local_hour(now)));
  EXPECT_EQ(p.total.at("person"), (Tally{2, 1})) << "the totals keep everything";

  // Counts restored from an earlier run lose their old hours too.
  Counts kept = scene.counts();
  kept.places[0].hours[local_hour(days(10))]["person"] = {5, 5};
  Scene second("main");
  second.configure({}, {middle_line()}, kNames);
  second.restore(kept);
  EXPECT_EQ(second.counts().places.at(0).hours, p.hours);
}

}  // namespace
}  // namespace yolo::tracking
