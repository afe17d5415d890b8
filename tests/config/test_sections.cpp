// SPDX-License-Identifier: Apache-2.0
// The tracking, zones, lines and events sections (config/sections/) as the loader reads them:
// what a valid file gives, and what each wrong value gets, at its key, line and column.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <string_view>

#include "config/config_loader.h"
#include "config/schema.h"
#include "config/yaml_writer.h"
#include "tests/support/temp_folder.h"

#include "tests/config/mutation.h"

namespace yolo::config {
namespace {

const LoadOptions kSchemaOnly{.check_files = false};

// Expects the file to fail with a problem at `key`, on `line` and `column` (1-based), whose
// message has `words`, written as "test.yaml:LINE:COLUMN: KEY: MESSAGE".
void expect_problem(std::string_view text, std::string_view key, int line, int column,
                    std::string_view words, const LoadOptions& options = kSchemaOnly) {
  try {
    parse_config(text, "test.yaml", options);
  } catch (const ConfigError& e) {
    for (const ConfigProblem& p : e.problems()) {
      if (p.key != key) continue;
      EXPECT_EQ(p.line, line) << e.what();
      EXPECT_EQ(p.column, column) << e.what();
      EXPECT_NE(p.message.find(words), std::string::npos) << e.what();
      const std::string where = "test.yaml:" + std::to_string(line) + ":" + std::to_string(column) +
                                ": " + std::string(key) + ": ";
      EXPECT_NE(std::string(e.what()).find(where + p.message), std::string::npos) << e.what();
      return;
    }
    ADD_FAILURE() << "no problem at " << key << " in:\n" << e.what();
    return;
  }
  ADD_FAILURE() << "loaded without a problem:\n" << text;
}

const char* const kValid = R"(
tracking:
  lost_s: 3
  confirm_frames: 2
zones:
  - name: gate
    points: [[0.1, 0.5], [0.45, 0.5], [0.45, 0.95]]
    classes: [person, traffic light, "a \"b\""]
    loiter_s: 30
  - name: yard-2
    points: [[0, 0], [1, 0], [1, 1], [0, 1]]
    anchor: center
    inertia_s: 0
lines:
  - name: road_north
    from: [0.0, 0.62]
    to: [1.0, 0.62]
    in: above
    anchor: center
    classes: [car, truck]
  - name: door
    from: [0.5, 0.1]
    to: [0.5, 0.9]
    in: left
    hysteresis: 0.05
events:
  snapshots: [enter, loiter]
  clips: [cross]
  clip_before_s: 0
  webhook: []
  max_mb: 50
)";

TEST(Sections, AValidFileGivesTheTypedSettings) {
  const Config c = parse_config(kValid, "test.yaml", kSchemaOnly);
  EXPECT_EQ(c.tracking.lost_s, 3);
  EXPECT_EQ(c.tracking.confirm_frames, 2);
  EXPECT_TRUE(c.tracking.enabled);
  ASSERT_EQ(c.zones.size(), 2u);
  EXPECT_EQ(c.zones[0].name, "gate");
  EXPECT_EQ(c.zones[0].camera, kMainCamera);
  EXPECT_EQ(c.zones[0].points.size(), 3u);
  EXPECT_EQ(c.zones[0].points[1], (FramePoint{0.45, 0.5}));
  // COCO names have spaces; quotes are written back as quotes.
  EXPECT_EQ(c.zones[0].classes, (std::vector<std::string>{"person", "traffic light", "a \"b\""}));
  EXPECT_EQ(c.zones[0].anchor, tracking::Anchor::kBottomCenter);
  EXPECT_EQ(c.zones[0].loiter_s, 30);
  EXPECT_EQ(c.zones[0].inertia_s, 0.3);
  EXPECT_EQ(c.zones[1].name, "yard-2");
  EXPECT_EQ(c.zones[1].points.size(), 4u);
  EXPECT_TRUE(c.zones[1].classes.empty());
  EXPECT_EQ(c.zones[1].anchor, tracking::Anchor::kCenter);
  EXPECT_EQ(c.zones[1].inertia_s, 0);
  ASSERT_EQ(c.lines.size(), 2u);
  EXPECT_EQ(c.lines[0].from, (FramePoint{0.0, 0.62}));
  EXPECT_EQ(c.lines[0].to, (FramePoint{1.0, 0.62}));
  EXPECT_EQ(c.lines[0].in, tracking::Side::kAbove);
  EXPECT_EQ(c.lines[0].anchor, tracking::Anchor::kCenter);
  EXPECT_EQ(c.lines[0].classes, (std::vector<std::string>{"car", "truck"}));
  EXPECT_EQ(c.lines[0].hysteresis, 0.01);
  EXPECT_EQ(c.lines[1].in, tracking::Side::kLeft);
  EXPECT_EQ(c.lines[1].hysteresis, 0.05);
  EXPECT_EQ(c.events.snapshots,
            (std::vector{tracking::ObjectEventKind::kEnter, tracking::ObjectEventKind::kLoiter}));
  EXPECT_EQ(c.events.clips, std::vector{tracking::ObjectEventKind::kCross});
  EXPECT_EQ(c.events.clip_before_s, 0);
  EXPECT_EQ(c.events.clip_after_s, 5);
  EXPECT_TRUE(c.events.webhook.empty());
  EXPECT_EQ(c.events.max_mb, 50);
  EXPECT_TRUE(c.events.crop);
}

TEST(Sections, EmptyListSectionsAreNoZonesAndNoLines) {
  const Config none = parse_config("zones:\nlines: []\n", "test.yaml", kSchemaOnly);
  EXPECT_TRUE(none.zones.empty());
  EXPECT_TRUE(none.lines.empty());
}

TEST(Sections, WrittenConfigsReadBackTheSame) {
  const Config c = parse_config(kValid, "test.yaml", kSchemaOnly);
  for (const bool comments : {true, false}) {
    const std::string text = to_yaml(c, comments);
    EXPECT_EQ(parse_config(text, "written.yaml", kSchemaOnly), c) << text;
  }
  // The defaults (no zones, no lines) too.
  EXPECT_EQ(parse_config(to_yaml(Config{}, true), "written.yaml", kSchemaOnly), Config{});
}

TEST(Sections, DescribeShowsEachMemberOfAListSection) {
  const std::string text = describe_schema();
  for (const std::string_view member :
       {"zones[].name (text; required)", "zones[].points (list of points [[x, y], ...]",
        "zones[].classes (list of names; default [])", "lines[].from (a point [x, y]",
        "lines[].in (one of above, below, left, right; required)",
        "events.snapshots (list of names from new, enter, leave, cross, loiter, end",
        "tracking.lost_s (number from 0.05 to 600", "events.max_mb (number from 1 to 1000000"}) {
    EXPECT_NE(text.find(member), std::string::npos) << member;
  }
  // Each list section's example, which loads.
  for (const SectionSpec& s : sections()) {
    if (!s.list) continue;
    const std::string example = std::string(s.name) + ":\n      " + std::string(s.example) + "\n";
    EXPECT_NE(text.find("  For example:\n    " + example), std::string::npos) << s.name;
    const Config c = parse_config(std::string(s.name) + ":\n  " + std::string(s.example) + "\n",
                                  "example.yaml", kSchemaOnly);
    EXPECT_EQ(c.zones.size() + c.lines.size() + c.cameras.size() + c.motion_masks.size(), 1u)
        << s.example;
  }
}

TEST(Sections, ZonesNeedThreeCornersInsideTheFrame) {
  expect_problem("zones:\n  - name: a\n    points: [[0.1, 0.1], [0.2, 0.2]]\n", "zones[0].points",
                 3, 13, "has 2 point(s): a zone needs at least three corners");
  // Each point is placed: the second zone's third one.
  expect_problem(
      "zones:\n  - name: a\n    points: [[0, 0], [1, 0], [1, 1]]\n  - name: b\n"
      "    points: [[0.1, 0.1], [0.9, 0.1], [0.5, -0.2]]\n",
      "zones[1].points[2]", 5, 38,
      "-0.2 is outside the frame: x and y are fractions of the frame, 0 to 1");
  expect_problem("zones:\n  - name: a\n    points: [[0.1, 0.1], [1.2, 0.2], [0.5, 0.5]]\n",
                 "zones[0].points[1]", 3, 26, "1.2 is outside the frame");
  expect_problem("zones:\n  - name: a\n    points: [[0.1, 0.1], [0.5, 0.5], [0.9, 0.9]]\n",
                 "zones[0].points", 3, 13, "encloses (almost) no area");
  expect_problem("zones:\n  - name: a\n", "zones[0]", 2, 5, "has no points");
  expect_problem("zones:\n  - name: a\n    points: [[0.1, 0.1], [0.2], [0.5, 0.5]]\n",
                 "zones[0].points[1]", 3, 26, "expected a point [x, y]");
}

// Motion is off unless the section or a camera turns it on; a camera's motion: on or off wins.
TEST(Sections, MotionIsTheSectionsUnlessACameraSaysOnOrOff) {
  const Config plain = parse_config("source: {uri: a.mp4}\n", "test.yaml", kSchemaOnly);
  EXPECT_FALSE(motion_enabled(plain, camera_list(plain).front()));
  const Config c = parse_config(
      "motion: {enabled: true, threshold: 25, full_frame_s: 5}\n"
      "cameras:\n  - {name: a, uri: a.mp4}\n  - {name: b, uri: b.mp4, motion: off}\n"
      "  - {name: c, uri: c.mp4, motion: on}\n"
      "motion_masks:\n  - {camera: a, points: [[0, 0], [0.3, 0], [0.3, 0.1]]}\n",
      "test.yaml", kSchemaOnly);
  EXPECT_TRUE(motion_enabled(c, c.cameras[0]));
  EXPECT_FALSE(motion_enabled(c, c.cameras[1]));
  EXPECT_TRUE(motion_enabled(c, c.cameras[2]));
  EXPECT_EQ(c.motion.threshold, 25);
  EXPECT_EQ(c.motion.full_frame_s, 5);
  ASSERT_EQ(c.motion_masks.size(), 1u);
  EXPECT_EQ(c.motion_masks[0].camera, "a");
  const Config off =
      parse_config("cameras:\n  - {name: a, uri: a.mp4, motion: on}\n", "test.yaml", kSchemaOnly);
  EXPECT_TRUE(motion_enabled(off, off.cameras[0])) << "on whatever the section says";
}

// A camera's problem names the camera, not only its place in the list, even when the mapping is
// too wrong to load.
TEST(Sections, ACamerasProblemNamesTheCamera) {
  expect_problem(
      "cameras:\n  - {name: road, uri: a.mp4}\n  - {name: birds, uri: b.mp4, detect_fps: -3}\n",
      "cameras[1].detect_fps", 3, 43, "out of range: use a number from 0 to 240 (camera 'birds')");
  expect_problem("cameras:\n  - {name: road, uri: a.mp4, motion: {enabled: true}}\n",
                 "cameras[0].motion", 2, 38, "(camera 'road')");
}

TEST(Sections, AMotionMaskIsInsideTheFrameOnACameraThereIs) {
  expect_problem("motion_masks:\n  - {points: [[0, 0], [1.5, 0], [0.5, 0.5]]}\n",
                 "motion_masks[0].points[1]", 2, 23, "1.5 is outside the frame");
  expect_problem("motion_masks:\n  - {points: [[0, 0], [1, 0]]}\n", "motion_masks[0].points", 2, 14,
                 "has 2 point(s): a mask needs at least three corners");
  // Left out with two cameras: said at the mask's key, without a line (nothing was written).
  try {
    parse_config(
        "cameras:\n  - {name: a, uri: a.mp4}\n  - {name: b, uri: b.mp4}\n"
        "motion_masks:\n  - {points: [[0, 0], [1, 0], [1, 1]]}\n",
        "test.yaml", kSchemaOnly);
    ADD_FAILURE() << "a mask on no camera of two loaded";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("motion_masks[0].camera: is not set, and there are 2 "
                                         "cameras: name the camera it is on (a, b)"),
              std::string::npos)
        << e.what();
  }
  expect_problem("motion_masks:\n  - {camera: door, points: [[0, 0], [1, 0], [1, 1]]}\n",
                 "motion_masks[0].camera", 2, 14, "'door' is not a camera: the cameras are main");
  expect_problem("cameras:\n  - {name: a, uri: a.mp4, motion: sometimes}\n", "cameras[0].motion", 2,
                 35, "sometimes");
  expect_problem("motion: {threshold: 0}\n", "motion.threshold", 1, 21, "out of range");
}

TEST(Sections, NegativeTimesAreOutOfRange) {
  expect_problem("zones:\n  - name: a\n    points: [[0, 0], [1, 0], [1, 1]]\n    loiter_s: -5\n",
                 "zones[0].loiter_s", 4, 15, "-5 is out of range: use a number from 0 to 86400");
  expect_problem("zones:\n  - name: a\n    points: [[0, 0], [1, 0], [1, 1]]\n    inertia_s: -1\n",
                 "zones[0].inertia_s", 4, 16, "out of range");
  expect_problem("tracking:\n  lost_s: -1\n", "tracking.lost_s", 2, 11, "out of range");
  expect_problem("tracking:\n  lost_s: 0\n", "tracking.lost_s", 2, 11, "from 0.05 to 600");
  expect_problem("events:\n  clip_before_s: -2\n", "events.clip_before_s", 2, 18, "out of range");
  expect_problem("events:\n  max_days: -1\n", "events.max_days", 2, 13, "out of range");
}

TEST(Sections, ALineNeedsALength) {
  expect_problem("lines:\n  - name: a\n    from: [0.5, 0.5]\n    to: [0.5, 0.5]\n    in: below\n",
                 "lines[0].to", 4, 9, "a line needs a length");
  expect_problem("lines:\n  - name: a\n    from: [0.5, 0.5]\n    to: [0.5, 0.505]\n    in: below\n",
                 "lines[0].to", 4, 9, "at least 0.01 of the frame apart");
  expect_problem("lines:\n  - name: a\n    from: [0.5, 0.5]\n    to: [1.5, 0.5]\n    in: below\n",
                 "lines[0].to", 4, 9, "1.5 is outside the frame");
}

TEST(Sections, ALineIsInOnASideItHas) {
  expect_problem("lines:\n  - name: a\n    from: [0.5, 0.1]\n    to: [0.5, 0.9]\n    in: below\n",
                 "lines[0].in", 5, 9,
                 "is below on a vertical line, which has no such side: use left or right");
  expect_problem("lines:\n  - name: a\n    from: [0.1, 0.5]\n    to: [0.9, 0.5]\n    in: left\n",
                 "lines[0].in", 5, 9,
                 "is left on a horizontal line, which has no such side: use above or below");
  expect_problem("lines:\n  - name: a\n    from: [0.1, 0.5]\n    to: [0.9, 0.5]\n    in: north\n",
                 "lines[0].in", 5, 9, "one of above, below, left, right");
  expect_problem("lines:\n  - name: a\n    from: [0.1, 0.5]\n    to: [0.9, 0.5]\n", "lines[0]", 2,
                 5, "has no in");
  // A slanted line has all four sides.
  for (const std::string_view side : {"above", "below", "left", "right"}) {
    EXPECT_NO_THROW(
        parse_config("lines:\n  - name: a\n    from: [0.1, 0.2]\n    to: [0.9, 0.7]\n"
                     "    in: " +
                         std::string(side) + "\n",
                     "test.yaml", kSchemaOnly))
        << side;
  }
}

TEST(Sections, APointIsTwoNumbers) {
  expect_problem("lines:\n  - name: a\n    from: 0.5\n    to: [0.9, 0.5]\n    in: below\n",
                 "lines[0].from", 3, 11, "expected a point [x, y] such as [0.5, 0.6], got '0.5'");
  expect_problem(
      "lines:\n  - name: a\n    from: [0.1, 0.2, 0.3]\n    to: [0.9, 0.5]\n    in: below\n",
      "lines[0].from", 3, 11, "expected a point [x, y]");
  expect_problem("lines:\n  - name: a\n    from: [0.1, y]\n    to: [0.9, 0.5]\n    in: below\n",
                 "lines[0].from", 3, 17, "expected a number for y, got 'y'");
}

TEST(Sections, NamesAreUniquePerCameraAndFitForTopics) {
  // Zones and lines share one namespace per camera.
  expect_problem(
      "zones:\n  - name: gate\n    points: [[0, 0], [1, 0], [1, 1]]\nlines:\n  - name: gate\n"
      "    from: [0, 0.5]\n    to: [1, 0.5]\n    in: below\n",
      "lines[0].name", 5, 11,
      "'gate' is already the name of zones[0] on camera main: zones and lines of a camera need "
      "names of their own");
  expect_problem(
      "zones:\n  - name: gate\n    points: [[0, 0], [1, 0], [1, 1]]\n  - name: gate\n"
      "    points: [[0, 0], [1, 0], [0, 1]]\n",
      "zones[1].name", 4, 11, "already the name of zones[0]");
  expect_problem("zones:\n  - name: front door\n    points: [[0, 0], [1, 0], [1, 1]]\n",
                 "zones[0].name", 2, 11, "has characters other than letters, digits, _ and -");
  expect_problem(
      "lines:\n  - name: road/north\n    from: [0, 0.5]\n    to: [1, 0.5]\n"
      "    in: below\n",
      "lines[0].name", 2, 11, "use e.g. front_door");
  expect_problem(
      "zones:\n  - name: " + std::string(65, 'a') + "\n    points: [[0, 0], [1, 0], [1, 1]]\n",
      "zones[0].name", 2, 11, "longer than 64 characters");
  expect_problem("zones:\n  - name:\n    points: [[0, 0], [1, 0], [1, 1]]\n", "zones[0].name", 2, 5,
                 "is empty");
}

TEST(Sections, ACameraIsOneTheDaemonHas) {
  expect_problem("zones:\n  - name: a\n    camera: garage\n    points: [[0, 0], [1, 0], [1, 1]]\n",
                 "zones[0].camera", 3, 13, "'garage' is not a camera: the cameras are main");
  expect_problem(
      "lines:\n  - name: a\n    camera: Main\n    from: [0, 0.5]\n    to: [1, 0.5]\n"
      "    in: below\n",
      "lines[0].camera", 3, 13, "the cameras are main");
  const std::string two =
      "cameras:\n  - {name: door, uri: /dev/video0}\n  - {name: yard, uri: /dev/video1}\n";
  expect_problem(two + "zones:\n  - {name: a, camera: main, points: [[0, 0], [1, 0], [1, 1]]}\n",
                 "zones[0].camera", 5, 23, "'main' is not a camera: the cameras are door, yard");
  try {
    parse_config(two + "zones:\n  - {name: a, points: [[0, 0], [1, 0], [1, 1]]}\n", "test.yaml",
                 kSchemaOnly);
    ADD_FAILURE() << "a zone without its camera among two loaded";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("zones[0].camera: is not set, and there are 2 cameras: "
                                         "name the camera it is on (door, yard)"),
              std::string::npos)
        << e.what();
  }
  // One camera: its zones and lines may leave it out.
  const Config one = parse_config(
      "cameras:\n  - {name: door, uri: /dev/video0}\nzones:\n  - {name: a, points: [[0, 0], [1, "
      "0], [1, 1]]}\nlines:\n  - {name: b, camera: door, from: [0, 0.5], to: [1, 0.5], in: "
      "below}\n",
      "c.yaml", kSchemaOnly);
  EXPECT_EQ(one.zones.at(0).camera, "door");
  EXPECT_EQ(one.lines.at(0).camera, "door");
}

TEST(Sections, CamerasAreEachASourceWithANameAndADetectFps) {
  const Config c = parse_config(
      "cameras:\n  - {name: door, uri: /dev/video0, fps: 15, detect_fps: 5}\n"
      "  - name: yard\n    uri: rtsp://cam/stream\n    reconnect_s: 10\n",
      "c.yaml", kSchemaOnly);
  ASSERT_EQ(c.cameras.size(), 2u);
  EXPECT_EQ(c.cameras[0].name, "door");
  EXPECT_EQ(c.cameras[0].source.uri, "/dev/video0");
  EXPECT_EQ(c.cameras[0].source.fps, 15);
  EXPECT_EQ(c.cameras[0].detect_fps, 5);
  EXPECT_EQ(c.cameras[1].source.reconnect_s, 10);
  EXPECT_EQ(c.cameras[1].source.realtime, true) << "the source's own default";
  EXPECT_EQ(c.cameras[1].detect_fps, 0);
  const std::vector<CameraConfig> list = camera_list(c);
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[1].name, "yard");
  // Without cameras: one camera, main, whose source is the source section.
  const Config single = parse_config("source:\n  uri: /dev/video2\n", "c.yaml", kSchemaOnly);
  const std::vector<CameraConfig> main = camera_list(single);
  ASSERT_EQ(main.size(), 1u);
  EXPECT_EQ(main[0].name, "main");
  EXPECT_EQ(main[0].source.uri, "/dev/video2");
}

TEST(Sections, CamerasWithOneNameADetectFpsAboveTheirsOrASourceBesideThemAreRefused) {
  expect_problem(
      "cameras:\n  - {name: door, uri: /dev/video0}\n  - {name: door, uri: /dev/video1}\n",
      "cameras[1].name", 3, 12,
      "'door' is already the name of cameras[0]: each camera needs a name of its own");
  expect_problem("cameras:\n  - {name: door, uri: /dev/video0, fps: 10, detect_fps: 12}\n",
                 "cameras[0].detect_fps", 2, 57, "is above the camera's own fps (10)");
  expect_problem("source:\n  uri: /dev/video0\ncameras:\n  - {name: door, uri: /dev/video1}\n",
                 "source.uri", 2, 8, "is set beside cameras:");
  expect_problem("cameras:\n  - {name: front door, uri: /dev/video0}\n", "cameras[0].name", 2, 12,
                 "has characters other than letters");
  expect_problem("cameras:\n  - {name: door}\n", "cameras[0]", 2, 5, "has no uri");
  expect_problem("cameras:\n  - {name: door, uri: /dev/video0, detect_fps: -1}\n",
                 "cameras[0].detect_fps", 2, 48, "is out of range");
}

TEST(Sections, AFourccIsAPixelFormatsFourCharacters) {
  const Config c = parse_config("source:\n  uri: /dev/video0\n  fourcc: MJPG\ncameras: []\n",
                                "c.yaml", kSchemaOnly);
  EXPECT_EQ(c.source.fourcc, "MJPG");
  EXPECT_EQ(parse_config("source:\n  fourcc: \"Y16 \"\n", "c.yaml", kSchemaOnly).source.fourcc,
            "Y16 ");
  EXPECT_EQ(Config{}.source.fourcc, "") << "the camera's own format by default";
  expect_problem("source:\n  uri: /dev/video0\n  fourcc: MJPEG\n", "source.fourcc", 3, 11,
                 "'MJPEG' is not a pixel format's four characters: use MJPG, YUYV");
  expect_problem("cameras:\n  - {name: door, uri: /dev/video0, fourcc: mjp}\n", "cameras[0].fourcc",
                 2, 44, "v4l2-ctl --list-formats-ext");
  const Config camera = parse_config("cameras:\n  - {name: door, uri: /dev/video0, fourcc: YUYV}\n",
                                     "c.yaml", kSchemaOnly);
  EXPECT_EQ(camera.cameras.at(0).source.fourcc, "YUYV");
}

TEST(Sections, AListSectionWrittenAsAMappingSaysWhatToWrite) {
  expect_problem("zones:\n  name: gate\n", "zones", 2, 3,
                 "expected a list, one item per zone starting with '- ', such as\n    zones:\n"
                 "      - {name: gate");
  expect_problem("lines:\n  name: road\n", "lines", 2, 3, "one item per line");
  expect_problem("zones: gate\n", "zones", 1, 8, "expected a list of mappings");
  expect_problem("zones:\n  - gate\n", "zones[0]", 2, 5, "gate");
  expect_problem("zones:\n  - name: a\n    point: [[0, 0], [1, 0], [1, 1]]\n", "zones[0].point", 3,
                 5, "did you mean 'points'?");
}

TEST(Sections, TrackingScoresWorkTogether) {
  expect_problem("tracking:\n  high_score: 0.4\n  low_score: 0.5\n", "tracking.low_score", 3, 14,
                 "is above tracking.high_score (0.40)");
  expect_problem("tracking:\n  low_score: 0.3\n  new_score: 0.2\n", "tracking.new_score", 3, 14,
                 "is below tracking.low_score (0.30)");
  expect_problem("tracking:\n  match_iou: 0\n", "tracking.match_iou", 2, 14, "out of range");
  EXPECT_NO_THROW(parse_config("tracking:\n  high_score: 0.3\n  low_score: 0.3\n  new_score: 0.3\n",
                               "test.yaml", kSchemaOnly));
}

TEST(Sections, EventKindsAreNamedAndClipsHaveADuration) {
  expect_problem("events:\n  clips: [enter]\n  clip_before_s: 0\n  clip_after_s: 0\n",
                 "events.clips", 2, 10,
                 "asks for clips while events.clip_before_s and events.clip_after_s are both 0");
  EXPECT_NO_THROW(parse_config("events:\n  clips: []\n  clip_before_s: 0\n  clip_after_s: 0\n",
                               "test.yaml", kSchemaOnly));
  expect_problem("events:\n  snapshots: [enter, crossing]\n", "events.snapshots[1]", 2, 22,
                 "did you mean 'cross'?");
  expect_problem("events:\n  webhook: [new, {a: 1}]\n", "events.webhook[1]", 2, 18,
                 "expected a name");
  expect_problem("events:\n  webhook: enter\n", "events.webhook", 2, 12,
                 "expected a list of names such as [person, car]");
}

TEST(Sections, ZonesWithoutTrackingAreAWarning) {
  std::vector<ConfigProblem> warnings;
  LoadOptions options = kSchemaOnly;
  options.warnings = &warnings;
  const std::string zone = "zones:\n  - name: a\n    points: [[0, 0], [1, 0], [1, 1]]\n";
  parse_config("tracking:\n  enabled: false\n" + zone, "test.yaml", options);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].key, "tracking.enabled");
  EXPECT_EQ(warnings[0].line, 2);
  EXPECT_EQ(warnings[0].column, 12);
  EXPECT_NE(warnings[0].message.find("the zones and lines count nothing"), std::string::npos);
  warnings.clear();
  parse_config("tracking:\n  enabled: false\n", "test.yaml", options);
  parse_config(zone, "test.yaml", options);
  EXPECT_TRUE(warnings.empty());
}

TEST(Sections, AnAlertByZoneNamesAZone) {
  const std::string zones =
      "zones:\n  - name: gate\n    points: [[0, 0], [1, 0], [1, 1]]\n"
      "  - name: yard\n    points: [[0, 0], [1, 0], [1, 1]]\n";
  const Config c = parse_config(zones + "gpio:\n  alerts: [{line: 17, zone: yard}, {line: 18}]\n",
                                "test.yaml", kSchemaOnly);
  ASSERT_EQ(c.gpio.alerts.size(), 2u);
  EXPECT_EQ(c.gpio.alerts[0].zone, "yard");
  EXPECT_EQ(c.gpio.alerts[1].zone, "");
  expect_problem(zones + "gpio:\n  alerts:\n    - {line: 17, zone: gat}\n", "gpio.alerts[0].zone",
                 8, 24, "'gat' is not a zone: did you mean 'gate'?");
  expect_problem(zones + "gpio:\n  alerts:\n    - {line: 17, zone: shed}\n", "gpio.alerts[0].zone",
                 8, 24, "the zones are gate, yard");
  expect_problem("gpio:\n  alerts:\n    - {line: 17, zone: gate}\n", "gpio.alerts[0].zone", 3, 24,
                 "'gate' is not a zone: there are none");
  // A zone with a problem of its own is that problem only.
  try {
    parse_config(
        "zones:\n  - name: gate\n    points: [[0, 0], [1, 0]]\ngpio:\n"
        "  alerts: [{line: 17, zone: gate}]\n",
        "test.yaml", kSchemaOnly);
    ADD_FAILURE() << "a zone with two points loaded";
  } catch (const ConfigError& e) {
    ASSERT_EQ(e.problems().size(), 1u) << e.what();
    EXPECT_EQ(e.problems()[0].key, "zones[0].points");
  }
}

TEST(Sections, ClassNamesMustBeTheModels) {
  LoadOptions options = kSchemaOnly;
  int asked = 0;
  options.class_names = [&asked](const std::filesystem::path& model) {
    ++asked;
    EXPECT_EQ(model.filename(), "m.onnx");
    return std::optional<std::vector<std::string>>({"person", "bicycle", "car"});
  };
  const std::string text =
      "model:\n  path: m.onnx\nlines:\n  - name: a\n    from: [0, 0.5]\n    to: [1, 0.5]\n"
      "    in: below\n    classes: [car, bicycel]\nzones:\n  - name: b\n"
      "    points: [[0, 0], [1, 0], [1, 1]]\n    classes: [persn, car, zebra]\n";
  expect_problem(text, "lines[0].classes[1]", 8, 20, "'bicycel' is not a class of the model ",
                 options);
  expect_problem(text, "lines[0].classes[1]", 8, 20, "m.onnx: did you mean 'bicycle'?", options);
  expect_problem(text, "zones[0].classes[0]", 12, 15, "did you mean 'person'?", options);
  expect_problem(text, "zones[0].classes[2]", 12, 27, "'zebra' is not a class of the model",
                 options);
  EXPECT_GT(asked, 0);
  // Without class filters the hook is not asked at all.
  asked = 0;
  parse_config("model:\n  path: m.onnx\n", "test.yaml", options);
  EXPECT_EQ(asked, 0);
  // Without model.path it is asked all the same: a caller running another model answers for it.
  options.class_names = [&asked](const std::filesystem::path& model) {
    ++asked;
    EXPECT_TRUE(model.empty()) << model;
    return std::optional<std::vector<std::string>>({"person"});
  };
  expect_problem("zones:\n  - name: b\n    points: [[0, 0], [1, 0], [1, 1]]\n    classes: [x]\n",
                 "zones[0].classes[0]", 4, 15,
                 "'x' is not a class of the model: its classes are person", options);
  EXPECT_EQ(asked, 1);
  // Names it cannot read (a model without names): not checked here.
  options.class_names = [](const std::filesystem::path&) {
    return std::optional<std::vector<std::string>>();
  };
  EXPECT_NO_THROW(parse_config(text, "test.yaml", options));
  // Without the hook (a tool that only shows the file) class names are not checked.
  EXPECT_NO_THROW(parse_config(text, "test.yaml", kSchemaOnly));
}

TEST(Sections, ClassNamesComeFromTheLabelsFileWhenThereIsOne) {
  const test::TempFolder folder;
  folder.write("labels.txt", "person\r\n  car \nbus\n\n");
  LoadOptions options = kSchemaOnly;
  int asked = 0;
  options.class_names = [&asked](const std::filesystem::path&) {
    ++asked;
    return std::optional<std::vector<std::string>>({"truck"});
  };
  const std::string file = (folder.path() / "test.yaml").string();
  const std::string text =
      "model:\n  path: m.onnx\n  labels: labels.txt\nlines:\n  - name: a\n    from: [0, 0.5]\n"
      "    to: [1, 0.5]\n    in: below\n    classes: [car, person, ";
  const Config c = parse_config(text + "bus]\n", file, options);
  EXPECT_EQ(c.lines.at(0).classes, (std::vector<std::string>{"car", "person", "bus"}));
  try {
    parse_config(text + "truck]\n", file, options);
    ADD_FAILURE() << "a class the labels file lacks loaded";
  } catch (const ConfigError& e) {
    ASSERT_EQ(e.problems().size(), 1u) << e.what();
    const ConfigProblem& p = e.problems()[0];
    EXPECT_EQ(p.key, "lines[0].classes[2]");
    EXPECT_EQ(p.line, 9);
    EXPECT_EQ(p.column, 28);
    EXPECT_NE(p.message.find("'truck' is not a class of the labels file"), std::string::npos)
        << p.message;
    EXPECT_NE(p.message.find("its classes are person, car, bus"), std::string::npos) << p.message;
  }
  EXPECT_EQ(asked, 0) << "the labels file names the classes, not the model";
}

TEST(Sections, MutatedZonesAndLinesGiveConfigErrorsNeverOtherFailures) {
  const std::string written = kValid;
  LoadOptions options = kSchemaOnly;
  options.class_names = [](const std::filesystem::path&) {
    return std::optional<std::vector<std::string>>({"person", "car", "truck", "traffic light"});
  };
  std::mt19937 random(20261128);
  int rejected = 0;
  for (int round = 0; round < 1000; ++round) {
    const std::string text = test::mutated(written, random);
    try {
      parse_config(text, "mutated.yaml", options);
    } catch (const ConfigError& e) {
      ++rejected;
      EXPECT_FALSE(e.problems().empty());
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not a ConfigError: " << e.what() << "\nfor:\n" << text;
      return;
    }
  }
  // The file as written has class names the hook lacks ("a \"b\""): every round is rejected
  // unless an edit removed them.
  EXPECT_GT(rejected, 500);
}

}  // namespace
}  // namespace yolo::config
