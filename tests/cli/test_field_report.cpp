// SPDX-License-Identifier: Apache-2.0
// The report's figures from field-log lines (cli/report/field_report.cpp), through the CLI's
// library: per precision, time and frames; gaps; crossings and zone entries from object lines;
// the live INT8 checks' agreement, their events and the floor.
#include "cli/report/field_report.h"

#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>

namespace yolo::cli {
namespace {

using nlohmann::json;

json interval(const std::string& time, const std::string& precision, double seconds, int frames) {
  return {{"type", "interval"}, {"time", time},     {"duration_s", seconds},
          {"host", "pi5"},      {"model", "m"},     {"precision", precision},
          {"threads", 2},       {"frames", frames}, {"fps", frames / seconds},
          {"dropped", 0}};
}

json object(const std::string& time, const std::string& type, const std::string& place_key,
            const std::string& place, const std::string& direction = "") {
  json j = {{"type", "event"},  {"event", "object"}, {"time", time},    {"event_type", type},
            {"camera", "main"}, {"label", "car"},    {place_key, place}};
  if (!direction.empty()) j["direction"] = direction;
  return j;
}

TEST(FieldReport, PrecisionsGapsCrossingsAndZones) {
  const std::vector<json> lines = {
      interval("2026-11-23T10:00:10.000Z", "fp32", 10, 100),
      interval("2026-11-23T10:00:20.000Z", "fp32", 10, 120),
      object("2026-11-23T10:00:21.000Z", "cross", "line", "road", "in"),
      object("2026-11-23T10:00:22.000Z", "cross", "line", "road", "out"),
      object("2026-11-23T10:00:23.000Z", "enter", "zone", "gate"),
      // Ten minutes without a line: the daemon was stopped.
      interval("2026-11-23T10:10:30.000Z", "int8", 10, 300),
  };
  const FieldReport r = build_field_report(lines, {});
  EXPECT_EQ(r.interval_lines, 3);
  EXPECT_EQ(r.event_lines, 3);
  ASSERT_EQ(r.precisions.size(), 2u);
  EXPECT_EQ(r.precisions[0].precision, "fp32");
  EXPECT_EQ(r.precisions[0].frames, 220);
  EXPECT_DOUBLE_EQ(r.precisions[0].seconds, 20);
  EXPECT_DOUBLE_EQ(r.precisions[0].fps, 11);
  EXPECT_EQ(r.precisions[1].precision, "int8");
  EXPECT_DOUBLE_EQ(r.precisions[1].fps, 30);
  ASSERT_EQ(r.gaps.size(), 1u);
  EXPECT_NEAR(r.gaps[0].end - r.gaps[0].start, 600, 1);
  EXPECT_EQ(r.object_events, 3);
  ASSERT_EQ(r.crossings.size(), 1u);
  EXPECT_EQ(r.crossings[0].line, "road");
  EXPECT_EQ(r.crossings[0].in, 1);
  EXPECT_EQ(r.crossings[0].out, 1);
  ASSERT_EQ(r.zones.size(), 1u);
  EXPECT_EQ(r.zones[0].entries, 1);

  // Logs without the INT8 checks' fields (checks off, an older daemon) show nothing of them.
  for (const auto& p : r.precisions) {
    EXPECT_FALSE(p.agreement_min || p.agreement_median || p.agreement_last) << p.precision;
    EXPECT_FALSE(p.int8_checks) << p.precision;
  }
  EXPECT_TRUE(r.int8_events.empty());
  EXPECT_TRUE(r.floors.empty());
  for (const auto& row : r.timeline.at("intervals")) {
    EXPECT_TRUE(row.at("int8_agreement").is_null()) << row;
    EXPECT_TRUE(row.at("int8_checks").is_null()) << row;
  }

  const std::string md = field_report_markdown(r, {}, {"yolo-edge.jsonl"});
  EXPECT_NE(md.find("road"), std::string::npos) << md;
  EXPECT_NE(md.find("gate"), std::string::npos) << md;
  EXPECT_EQ(md.find("agreement"), std::string::npos) << md;
  EXPECT_EQ(md.find("INT8 checks"), std::string::npos) << md;
  EXPECT_EQ(md.find("floor"), std::string::npos) << md;
}

json with_checks(json line, std::optional<double> agreement, int checks) {
  if (agreement) line["int8_agreement"] = *agreement;
  line["int8_checks"] = checks;
  return line;
}

json event(const std::string& time, const std::string& name, json fields) {
  json j = {{"type", "event"}, {"event", name}, {"time", time}};
  j.update(fields);
  return j;
}

TEST(FieldReport, TheInt8ChecksAgreementPerPrecisionWithItsEventsAndFloor) {
  const std::vector<json> lines = {
      // FP32 runs and the checks run the other way; the first interval judged nothing yet.
      with_checks(interval("2026-11-23T10:00:10.000Z", "fp32", 10, 100), std::nullopt, 1),
      with_checks(interval("2026-11-23T10:00:20.000Z", "fp32", 10, 100), 0.97, 3),
      with_checks(interval("2026-11-23T10:00:30.000Z", "fp32", 10, 100), 0.96, 2),
      event(
          "2026-11-23T10:00:30.000Z", "precision_chosen",
          {{"precision", "int8"}, {"reason", "INT8 agrees"}, {"map50", 0.96}, {"min_map50", 0.93}}),
      with_checks(interval("2026-11-23T10:00:40.000Z", "int8", 10, 300), 0.95, 4),
      with_checks(interval("2026-11-23T10:00:50.000Z", "int8", 10, 300), 0.90, 5),
      // No frames: the camera was away; not in the table.
      with_checks(interval("2026-11-23T10:01:00.000Z", "int8", 10, 0), 0.10, 0),
      with_checks(interval("2026-11-23T10:01:10.000Z", "int8", 10, 300), 0.92, 6),
      event("2026-11-23T10:01:05.000Z", "int8_drift",
            {{"level", "warning"},
             {"message",
              "INT8's agreement with FP32 0.900 < 0.930 (model.auto_min_map50) for 1.0 min: "
              "INT8 keeps running (checks.drift_action: warn)"},
             {"phase", "warned"},
             {"action", "warn"},
             {"min_map50", 0.93}}),
      event("2026-11-23T10:01:06.000Z", "int8_checks",
            {{"level", "warning"}, {"message", "INT8 checks starved: none has ended for 10 min"}}),
  };
  const FieldReport r = build_field_report(lines, {});
  ASSERT_EQ(r.precisions.size(), 2u);
  const PrecisionSummary& fp32 = r.precisions[0];
  EXPECT_DOUBLE_EQ(*fp32.agreement_min, 0.96);
  EXPECT_DOUBLE_EQ(*fp32.agreement_median, 0.965);
  EXPECT_DOUBLE_EQ(*fp32.agreement_last, 0.96);
  EXPECT_EQ(*fp32.int8_checks, 6);
  const PrecisionSummary& int8 = r.precisions[1];
  EXPECT_DOUBLE_EQ(*int8.agreement_min, 0.90);
  EXPECT_DOUBLE_EQ(*int8.agreement_median, 0.92);
  EXPECT_DOUBLE_EQ(*int8.agreement_last, 0.92);
  EXPECT_EQ(*int8.int8_checks, 15);

  ASSERT_EQ(r.int8_events.size(), 2u);
  EXPECT_EQ(r.int8_events[0].event, "int8_drift");
  EXPECT_EQ(r.int8_events[0].phase, "warned");
  EXPECT_EQ(r.int8_events[0].action, "warn");
  EXPECT_EQ(r.int8_events[1].event, "int8_checks");
  EXPECT_EQ(r.int8_events[1].phase, "");
  ASSERT_EQ(r.floors.size(), 2u);
  EXPECT_DOUBLE_EQ(r.floors[0].min_map50, 0.93);

  // What the plot script gets: the agreement per interval (null where none), the events and the
  // floors.
  const json& rows = r.timeline.at("intervals");
  ASSERT_EQ(rows.size(), 7u);
  EXPECT_TRUE(rows[0].at("int8_agreement").is_null());
  EXPECT_EQ(rows[0].at("int8_checks"), 1);
  EXPECT_DOUBLE_EQ(rows[4].at("int8_agreement").get<double>(), 0.90);
  EXPECT_EQ(rows[4].at("int8_checks"), 5);
  ASSERT_EQ(r.timeline.at("int8_events").size(), 2u);
  EXPECT_EQ(r.timeline.at("int8_events")[0].at("phase"), "warned");
  ASSERT_EQ(r.timeline.at("floors").size(), 2u);
  EXPECT_DOUBLE_EQ(r.timeline.at("floors")[0].at("min_map50").get<double>(), 0.93);

  const std::string md = field_report_markdown(r, {}, {"yolo-edge.jsonl"});
  for (const char* text :
       {"The floor (model.auto_min_map50, as the logs record it): 0.930.",
        "| throttled | frames per thread count | INT8 agreement min / median / last | checks |",
        " | 0.960 / 0.965 / 0.960 | 6 |\n", " | 0.900 / 0.920 / 0.920 | 15 |\n",
        "## INT8 checks' events",
        "| 2026-11-23 10:01:05 | int8_drift | warned | warn | INT8's agreement with FP32 0.900 < "
        "0.930 (model.auto_min_map50) for 1.0 min: INT8 keeps running (checks.drift_action: "
        "warn) |",
        "| 2026-11-23 10:01:06 | int8_checks | - | - | INT8 checks starved: none has ended for 10 "
        "min |"}) {
    EXPECT_NE(md.find(text), std::string::npos) << text << "\n" << md;
  }
  EXPECT_EQ(md.find("No agreement floor"), std::string::npos) << md;
}

TEST(FieldReport, ChecksThatJudgedNothingYetGiveTheirCountAndNoAgreement) {
  const std::vector<json> lines = {
      with_checks(interval("2026-11-23T10:00:10.000Z", "int8", 10, 100), std::nullopt, 2),
      with_checks(interval("2026-11-23T10:00:20.000Z", "int8", 10, 100), std::nullopt, 1)};
  const FieldReport r = build_field_report(lines, {});
  ASSERT_EQ(r.precisions.size(), 1u);
  EXPECT_FALSE(r.precisions[0].agreement_min);
  EXPECT_EQ(r.precisions[0].int8_checks, 3);
  const std::string md = field_report_markdown(r, {}, {"yolo-edge.jsonl"});
  EXPECT_NE(md.find(" | n/a | 3 |\n"), std::string::npos) << md;
  // Nothing to draw a floor under, so nothing said of one.
  EXPECT_EQ(md.find("floor"), std::string::npos) << md;
}

TEST(FieldReport, AnAgreementWithoutARecordedFloorSaysSo) {
  const FieldReport r = build_field_report(
      {with_checks(interval("2026-11-23T10:00:10.000Z", "int8", 10, 100), 0.97, 2)}, {});
  EXPECT_TRUE(r.floors.empty());
  const std::string md = field_report_markdown(r, {}, {"yolo-edge.jsonl"});
  EXPECT_NE(md.find("No agreement floor"), std::string::npos) << md;
  EXPECT_NE(md.find(" | 0.970 / 0.970 / 0.970 | 2 |"), std::string::npos) << md;
}

// A daemon of several cameras: each camera's frames and skips over the lines that name it, and a
// table of them; one camera's logs have none.
TEST(FieldReport, SeveralCamerasGetTheirDetectionRatesAndSkips) {
  std::vector<json> lines;
  for (int i = 0; i < 3; ++i) {
    json line = interval("2026-11-28T10:00:0" + std::to_string(2 * i + 2) + ".000Z", "int8", 2, 18);
    line["cameras"] = {{"road", {{"frames", 10}, {"fps", 5.0}, {"skipped", i == 2 ? 3 : 0}}},
                       {"birds", {{"frames", 8}, {"fps", 4.0}, {"skipped", 1}}}};
    lines.push_back(std::move(line));
  }
  const FieldReport r = build_field_report(lines, {});
  ASSERT_EQ(r.cameras.size(), 2u);
  // By name.
  EXPECT_EQ(r.cameras[0].name, "birds");
  EXPECT_EQ(r.cameras[0].frames, 24);
  EXPECT_EQ(r.cameras[1].name, "road");
  EXPECT_EQ(r.cameras[1].frames, 30);
  EXPECT_EQ(r.cameras[1].skipped, 3);
  EXPECT_DOUBLE_EQ(r.cameras[1].seconds, 6);
  const std::string md = field_report_markdown(r, {}, {"a.jsonl"});
  EXPECT_NE(md.find("## Cameras"), std::string::npos) << md;
  EXPECT_NE(md.find("| road | 30 | 5.00 | 3 | 0.50 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| birds | 24 | 4.00 | 3 | 0.50 |"), std::string::npos) << md;
  EXPECT_TRUE(build_field_report({interval("2026-11-28T10:00:02.000Z", "int8", 2, 18)}, {})
                  .cameras.empty());
}

TEST(FieldReport, LogsWithoutAnIntervalLineAreRefused) {
  EXPECT_THROW(build_field_report({object("2026-11-23T10:00:21.000Z", "new", "zone", "")}, {}),
               std::invalid_argument);
}

TEST(FieldReport, ParsesTheLogsTimesOnly) {
  EXPECT_DOUBLE_EQ(*parse_utc("1970-01-01T00:01:40.500Z"), 100.5);
  EXPECT_FALSE(parse_utc("1970-01-01 00:01:40"));
}

}  // namespace
}  // namespace yolo::cli
