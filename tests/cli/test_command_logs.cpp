// SPDX-License-Identifier: Apache-2.0
// yolo-edge logs export --csv on field logs written here: folders and rotated files, flattening,
// quoting, damaged lines and bad input (cli/logs/command_logs.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/cli/run_cli.h"
#include "tests/support/temp_folder.h"

namespace yolo::test {
namespace {

namespace fs = std::filesystem;

using Table = std::vector<std::vector<std::string>>;

// RFC 4180 CSV as the command writes it (LF line ends), parsed back into cells.
Table parse_csv(const std::string& text) {
  Table rows(1);
  std::string cell;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(cell);
      cell.clear();
    } else if (c == '\n') {
      rows.back().push_back(cell);
      cell.clear();
      rows.emplace_back();
    } else {
      cell += c;
    }
  }
  if (rows.back().empty()) rows.pop_back();
  return rows;
}

// The cell of `row` under the header `column`; fails the test when there is no such column.
std::string cell(const Table& table, std::size_t row, const std::string& column) {
  const auto& header = table.at(0);
  for (std::size_t c = 0; c < header.size(); ++c) {
    if (header[c] == column) return table.at(row).at(c);
  }
  ADD_FAILURE() << "no column " << column;
  return "";
}

std::size_t column_index(const Table& table, const std::string& column) {
  const auto& header = table.at(0);
  return std::find(header.begin(), header.end(), column) - header.begin();
}

std::string interval(const std::string& time, int frames, const std::string& extra = "") {
  return R"({"type":"interval","time":")" + time +
         R"(","duration_s":10.0,"host":"pi5","model":"yolo11n_320_fp32","precision":"fp32",)"
         R"("input":[320,320],"threads":2,"frames":)" +
         std::to_string(frames) + R"(,"fps":)" + std::to_string(frames / 10.0) +
         R"(,"dropped":1,"latency_ms":{"inference":{"p50":21.5,"p90":24.0,"p99":30.1,)"
         R"("mean":22.0,"max":31.0}},"detections":{"person":4},"telemetry_samples":10,)"
         R"("temp_c":{"cpu-thermal":55.5})" +
         extra + "}\n";
}

// A log folder as the daemon leaves it: two rotated files and the current one.
fs::path rotated_logs(const TempFolder& tmp) {
  tmp.write("logs/yolo-edge.jsonl.2", interval("2026-01-01T00:00:10.000Z", 100));
  tmp.write("logs/yolo-edge.jsonl.1",
            interval("2026-01-01T00:00:20.000Z", 200, R"(,"frames_by_threads":{"1":50,"2":150})"));
  tmp.write("logs/yolo-edge.jsonl",
            R"({"type":"event","event":"swap","time":"2026-01-01T00:00:25.000Z","to":"int8"})"
            "\n" +
                interval("2026-01-01T00:00:30.000Z", 300) +
                R"({"type":"event","event":"stop","time":"2026-01-01T00:00:31.000Z"})"
                "\n");
  return tmp.path() / "logs";
}

TEST(CliLogs, AFolderIsReadOldestFirstAndFlattened) {
  TempFolder tmp;
  const auto r = run_cli({"logs", "export", "--csv", rotated_logs(tmp).string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const Table table = parse_csv(r.out);
  ASSERT_EQ(table.size(), 4u) << r.out;
  // The fixed columns first, then the rest sorted.
  const std::vector<std::string> fixed = {"time",      "duration_s", "host",    "model",
                                          "precision", "input.0",    "input.1", "threads",
                                          "frames",    "fps",        "dropped"};
  ASSERT_GE(table[0].size(), fixed.size());
  EXPECT_EQ(std::vector<std::string>(table[0].begin(), table[0].begin() + fixed.size()), fixed);
  EXPECT_TRUE(std::is_sorted(table[0].begin() + fixed.size(), table[0].end())) << r.out;
  EXPECT_EQ(column_index(table, "type"), table[0].size()) << "the type column says nothing";

  EXPECT_EQ(cell(table, 1, "time"), "2026-01-01T00:00:10.000Z");
  EXPECT_EQ(cell(table, 2, "time"), "2026-01-01T00:00:20.000Z");
  EXPECT_EQ(cell(table, 3, "time"), "2026-01-01T00:00:30.000Z");
  EXPECT_EQ(cell(table, 1, "frames"), "100");
  EXPECT_EQ(cell(table, 1, "input.0"), "320");
  EXPECT_EQ(cell(table, 1, "latency_ms.inference.p50"), "21.5");
  EXPECT_EQ(cell(table, 1, "temp_c.cpu-thermal"), "55.5");
  EXPECT_EQ(cell(table, 1, "detections.person"), "4");
  // A column only one line has is empty in the others.
  EXPECT_EQ(cell(table, 2, "frames_by_threads.2"), "150");
  EXPECT_EQ(cell(table, 1, "frames_by_threads.2"), "");
  for (const auto& row : table) EXPECT_EQ(row.size(), table[0].size());
}

TEST(CliLogs, FilesAreReadInTheOrderGiven) {
  TempFolder tmp;
  const auto dir = rotated_logs(tmp);
  const auto r = run_cli({"logs", "export", "--csv", (dir / "yolo-edge.jsonl").string(),
                          (dir / "yolo-edge.jsonl.2").string()});
  ASSERT_EQ(r.status, 0) << r.err;
  const Table table = parse_csv(r.out);
  ASSERT_EQ(table.size(), 3u) << r.out;
  EXPECT_EQ(cell(table, 1, "frames"), "300");
  EXPECT_EQ(cell(table, 2, "frames"), "100");
}

TEST(CliLogs, EventsExportTheEventLines) {
  TempFolder tmp;
  const auto r = run_cli({"logs", "export", "--csv", "--events", rotated_logs(tmp).string()});
  ASSERT_EQ(r.status, 0) << r.err;
  const Table table = parse_csv(r.out);
  ASSERT_EQ(table.size(), 3u) << r.out;
  EXPECT_EQ(table[0], (std::vector<std::string>{"time", "event", "to"}));
  EXPECT_EQ(table[1], (std::vector<std::string>{"2026-01-01T00:00:25.000Z", "swap", "int8"}));
  EXPECT_EQ(table[2], (std::vector<std::string>{"2026-01-01T00:00:31.000Z", "stop", ""}));
}

TEST(CliLogs, CellsWithCommasQuotesAndLineBreaksAreQuoted) {
  TempFolder tmp;
  const auto log = tmp.write(
      "log.jsonl",
      R"({"type":"event","event":"warning","time":"t","message":"disk \"sd\", full\nretrying"})"
      "\n");
  const auto r = run_cli({"logs", "export", "--csv", "--events", log.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "\"disk \"\"sd\"\", full\nretrying\"")) << r.out;
  const Table table = parse_csv(r.out);
  ASSERT_EQ(table.size(), 2u);
  EXPECT_EQ(cell(table, 1, "message"), "disk \"sd\", full\nretrying");
}

TEST(CliLogs, NumberedColumnsSortByNumber) {
  TempFolder tmp;
  std::string cores;
  for (int i = 0; i < 12; ++i) {
    if (i > 0) cores += ",";
    cores += std::to_string(i / 100.0);
  }
  const auto log = tmp.write("log.jsonl", interval("t", 1, R"(,"cpu_busy":[)" + cores + "]"));
  const auto r = run_cli({"logs", "export", "--csv", log.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  const Table table = parse_csv(r.out);
  EXPECT_LT(column_index(table, "cpu_busy.2"), column_index(table, "cpu_busy.10"));
  EXPECT_LT(column_index(table, "cpu_busy.10"), column_index(table, "cpu_busy.11"));
  EXPECT_LT(column_index(table, "cpu_busy.11"), table[0].size());
}

TEST(CliLogs, DamagedLinesAreSkippedWithTheirFileAndLine) {
  TempFolder tmp;
  // Garbage in the middle and a last line cut off by a crash (no line end).
  const auto log =
      tmp.write("log.jsonl", interval("a", 10) + "not json at all\n" + R"(["an","array"])" + "\n" +
                                 interval("b", 20) + R"({"type":"interval","time":"c","fra)");
  const auto r = run_cli({"logs", "export", "--csv", log.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  const Table table = parse_csv(r.out);
  ASSERT_EQ(table.size(), 3u) << r.out;
  EXPECT_EQ(cell(table, 1, "time"), "a");
  EXPECT_EQ(cell(table, 2, "time"), "b");
  EXPECT_TRUE(contains(r.err, log.string() + ":2: not JSON, skipped")) << r.err;
  EXPECT_TRUE(contains(r.err, log.string() + ":3: not a field-log line")) << r.err;
  EXPECT_TRUE(contains(r.err, log.string() + ":5: truncated last line")) << r.err;
}

TEST(CliLogs, OutWritesTheFile) {
  TempFolder tmp;
  const auto out = tmp.path() / "table.csv";
  const auto r =
      run_cli({"logs", "export", "--csv", "--out", out.string(), rotated_logs(tmp).string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  std::ifstream in(out);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(parse_csv(text).size(), 4u) << text;
}

TEST(CliLogs, AMissingPathIsBadInput) {
  TempFolder tmp;
  const auto missing = (tmp.path() / "nowhere").string();
  const auto r = run_cli({"logs", "export", "--csv", missing});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "no such file or folder: " + missing)) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(CliLogs, AFolderWithoutLogsIsBadInput) {
  TempFolder tmp;
  tmp.write("notes.txt", "hello\n");
  const auto r = run_cli({"logs", "export", "--csv", tmp.path().string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "no field logs (*.jsonl) in " + tmp.path().string())) << r.err;
}

TEST(CliLogs, NoLinesOfTheKindAskedIsBadInput) {
  TempFolder tmp;
  const auto empty = tmp.write("empty.jsonl", "");
  auto r = run_cli({"logs", "export", "--csv", empty.string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "no interval lines in " + empty.string())) << r.err;

  const auto events = tmp.write("events.jsonl", R"({"type":"event","event":"start","time":"t"})"
                                                "\n");
  r = run_cli({"logs", "export", "--csv", events.string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "only event lines: add --events")) << r.err;
}

TEST(CliLogs, UsageErrorsAreBadInput) {
  TempFolder tmp;
  const auto dir = rotated_logs(tmp).string();
  EXPECT_EQ(run_cli({"logs"}).status, 2);
  const auto r = run_cli({"logs", "export", dir});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "--csv")) << r.err;
}

}  // namespace
}  // namespace yolo::test
