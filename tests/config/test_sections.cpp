// SPDX-License-Identifier: Apache-2.0
// The tracking, zones, lines and events sections (config/sections/) as the loader reads them:
// what a valid file gives, and what each wrong value gets, at its key, line and column.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "config/config_loader.h"

namespace yolo::config {
namespace {

const LoadOptions kSchemaOnly{.check_files = false};

const ConfigProblem* problem_at(const ConfigError& e, std::string_view key) {
  for (const ConfigProblem& p : e.problems()) {
    if (p.key == key) return &p;
  }
  return nullptr;
}

// The problem a file gets at `key`; fails the test when it loads or has none there.
ConfigProblem problem(std::string_view text, std::string_view key,
                      const LoadOptions& options = kSchemaOnly) {
  try {
    parse_config(text, "test.yaml", options);
  } catch (const ConfigError& e) {
    if (const ConfigProblem* p = problem_at(e, key)) return *p;
    ADD_FAILURE() << "no problem at " << key << " in:\n" << e.what();
    return {};
  }
  ADD_FAILURE() << "loaded without a problem:\n" << text;
  return {};
}

TEST(Sections, AValidFileGivesTheTypedSettings) {
  const Config c = parse_config(R"(
tracking:
  lost_s: 3
  confirm_frames: 2
zones:
  - name: gate
    points: [[0.1, 0.5], [0.45, 0.5], [0.45, 0.95]]
    classes: [person]
    loiter_s: 30
lines:
  - name: road_north
    from: [0.0, 0.62]
    to: [1.0, 0.62]
    in: above
    anchor: center
events:
  snapshots: [enter, loiter]
  clips: [cross]
  webhook: []
)",
                                "test.yaml", kSchemaOnly);
  EXPECT_EQ(c.tracking.lost_s, 3);
  EXPECT_EQ(c.tracking.confirm_frames, 2);
  EXPECT_TRUE(c.tracking.enabled);
  ASSERT_EQ(c.zones.size(), 1u);
  EXPECT_EQ(c.zones[0].name, "gate");
  EXPECT_EQ(c.zones[0].camera, kMainCamera);
  EXPECT_EQ(c.zones[0].points.size(), 3u);
  EXPECT_EQ(c.zones[0].points[1], (FramePoint{0.45, 0.5}));
  EXPECT_EQ(c.zones[0].classes, std::vector<std::string>{"person"});
  EXPECT_EQ(c.zones[0].loiter_s, 30);
  EXPECT_EQ(c.zones[0].inertia_s, 0.3);
  ASSERT_EQ(c.lines.size(), 1u);
  EXPECT_EQ(c.lines[0].to, (FramePoint{1.0, 0.62}));
  EXPECT_EQ(c.lines[0].in, tracking::Side::kAbove);
  EXPECT_EQ(c.lines[0].anchor, tracking::Anchor::kCenter);
  EXPECT_EQ(c.lines[0].hysteresis, 0.01);
  EXPECT_EQ(c.events.snapshots,
            (std::vector{tracking::ObjectEventKind::kEnter, tracking::ObjectEventKind::kLoiter}));
  EXPECT_EQ(c.events.clips, std::vector{tracking::ObjectEventKind::kCross});
  EXPECT_TRUE(c.events.webhook.empty());
  // Empty sections are no zones and no lines.
  const Config none = parse_config("zones:\nlines: []\n", "test.yaml", kSchemaOnly);
  EXPECT_TRUE(none.zones.empty());
  EXPECT_TRUE(none.lines.empty());
}

TEST(Sections, ZonesNeedThreeCornersInsideTheFrame) {
  const ConfigProblem two =
      problem("zones:\n  - name: a\n    points: [[0.1, 0.1], [0.2, 0.2]]\n", "zones[0].points");
  EXPECT_EQ(two.line, 3);
  EXPECT_NE(two.message.find("at least three corners"), std::string::npos) << two.message;
  const ConfigProblem outside =
      problem("zones:\n  - name: a\n    points: [[0.1, 0.1], [1.2, 0.2], [0.5, 0.5]]\n",
              "zones[0].points[1]");
  EXPECT_EQ(outside.line, 3);
  EXPECT_EQ(outside.column, 26) << "the point itself";
  EXPECT_NE(outside.message.find("outside the frame"), std::string::npos) << outside.message;
  const ConfigProblem missing = problem("zones:\n  - name: a\n", "zones[0]");
  EXPECT_NE(missing.message.find("has no points"), std::string::npos) << missing.message;
}

TEST(Sections, ALineNeedsALengthAndAnInSideItHas) {
  const ConfigProblem zero =
      problem("lines:\n  - name: a\n    from: [0.5, 0.5]\n    to: [0.5, 0.505]\n    in: below\n",
              "lines[0].to");
  EXPECT_EQ(zero.line, 4);
  EXPECT_NE(zero.message.find("needs a length"), std::string::npos) << zero.message;
  const ConfigProblem side =
      problem("lines:\n  - name: a\n    from: [0.5, 0.1]\n    to: [0.5, 0.9]\n    in: below\n",
              "lines[0].in");
  EXPECT_EQ(side.line, 5);
  EXPECT_NE(side.message.find("use left or right"), std::string::npos) << side.message;
  const ConfigProblem no_in =
      problem("lines:\n  - name: a\n    from: [0.1, 0.5]\n    to: [0.9, 0.5]\n", "lines[0]");
  EXPECT_NE(no_in.message.find("has no in"), std::string::npos) << no_in.message;
  const ConfigProblem not_point = problem(
      "lines:\n  - name: a\n    from: 0.5\n    to: [0.9, 0.5]\n    in: below\n", "lines[0].from");
  EXPECT_NE(not_point.message.find("expected a point [x, y]"), std::string::npos);
}

TEST(Sections, NamesAreUniquePerCameraAndFitForTopics) {
  const ConfigProblem twice = problem(
      "zones:\n  - name: gate\n    points: [[0, 0], [1, 0], [1, 1]]\nlines:\n  - name: gate\n"
      "    from: [0, 0.5]\n    to: [1, 0.5]\n    in: below\n",
      "lines[0].name");
  EXPECT_EQ(twice.line, 5);
  EXPECT_NE(twice.message.find("already the name of zones[0]"), std::string::npos) << twice.message;
  const ConfigProblem spaces = problem(
      "zones:\n  - name: front door\n    points: [[0, 0], [1, 0], [1, 1]]\n", "zones[0].name");
  EXPECT_NE(spaces.message.find("letters, digits, _ and -"), std::string::npos);
  const ConfigProblem camera =
      problem("zones:\n  - name: a\n    camera: garage\n    points: [[0, 0], [1, 0], [1, 1]]\n",
              "zones[0].camera");
  EXPECT_EQ(camera.line, 3);
  EXPECT_NE(camera.message.find("named main"), std::string::npos) << camera.message;
}

TEST(Sections, AListSectionWrittenAsAMappingSaysWhatToWrite) {
  const ConfigProblem p = problem("zones:\n  name: gate\n", "zones");
  EXPECT_NE(p.message.find("expected a list"), std::string::npos) << p.message;
  EXPECT_NE(p.message.find("- {name: gate"), std::string::npos) << p.message;
}

TEST(Sections, TrackingAndEventsRules) {
  EXPECT_NE(problem("tracking:\n  low_score: 0.7\n", "tracking.low_score")
                .message.find("above tracking.high_score"),
            std::string::npos);
  EXPECT_NE(problem("tracking:\n  lost_s: -1\n", "tracking.lost_s").message.find("out of range"),
            std::string::npos);
  EXPECT_NE(
      problem("events:\n  clips: [enter]\n  clip_before_s: 0\n  clip_after_s: 0\n", "events.clips")
          .message.find("both 0"),
      std::string::npos);
  const ConfigProblem kind =
      problem("events:\n  snapshots: [enter, crossing]\n", "events.snapshots");
  EXPECT_NE(kind.message.find("did you mean 'cross'?"), std::string::npos) << kind.message;
}

TEST(Sections, ClassNamesMustBeTheModels) {
  LoadOptions options = kSchemaOnly;
  int asked = 0;
  options.class_names = [&asked](const std::filesystem::path&) {
    ++asked;
    return std::optional<std::vector<std::string>>({"person", "bicycle", "car"});
  };
  const std::string text =
      "model:\n  path: m.onnx\nlines:\n  - name: a\n    from: [0, 0.5]\n    to: [1, 0.5]\n"
      "    in: below\n    classes: [car, bicycel]\n";
  const ConfigProblem p = problem(text, "lines[0].classes", options);
  EXPECT_EQ(p.line, 8);
  EXPECT_NE(p.message.find("'bicycel' is not a class of the model"), std::string::npos);
  EXPECT_NE(p.message.find("did you mean 'bicycle'?"), std::string::npos) << p.message;
  EXPECT_EQ(asked, 1);
  // Without class filters the model is not opened at all.
  asked = 0;
  parse_config("model:\n  path: m.onnx\n", "test.yaml", options);
  EXPECT_EQ(asked, 0);
  // Names it cannot read (a model without names): not checked here.
  options.class_names = [](const std::filesystem::path&) {
    return std::optional<std::vector<std::string>>();
  };
  EXPECT_NO_THROW(parse_config(text, "test.yaml", options));
}

}  // namespace
}  // namespace yolo::config
