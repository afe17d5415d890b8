// SPDX-License-Identifier: Apache-2.0
// The report's figures from field-log lines (cli/report/field_report.cpp), through the CLI's
// library: per precision, time and frames; gaps; crossings and zone entries from object lines.
#include "cli/report/field_report.h"

#include <gtest/gtest.h>

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

  const std::string md = field_report_markdown(r, {}, {"yolo-edge.jsonl"});
  EXPECT_NE(md.find("road"), std::string::npos) << md;
  EXPECT_NE(md.find("gate"), std::string::npos) << md;
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
