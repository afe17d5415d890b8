// SPDX-License-Identifier: Apache-2.0
// `yolo-edge report` as a user runs it, on field logs written line by line as docs/field-log.md
// describes them: two precisions with every sensor, rotated and damaged files with a gap, one
// precision on a machine without power or throttle readings, the live INT8 checks' agreement,
// and logs it cannot use.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/cli/run_cli.h"
#include "tests/support/temp_folder.h"
#include "tests/support/tree_paths.h"

namespace yolo::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// 2026-11-23T19:40:00Z, where the synthetic logs start.
constexpr std::time_t kStart = 1795462800;

std::string utc(double seconds_after_start) {
  const auto whole = static_cast<std::time_t>(seconds_after_start);
  const int ms = static_cast<int>((seconds_after_start - static_cast<double>(whole)) * 1000);
  const std::time_t t = kStart + whole;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[40];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &tm);
  return std::string(text) + "." + std::to_string(1000 + ms).substr(1) + "Z";
}

// The interval line that ends `end` seconds after the start, `duration` long.
json interval(double end, const std::string& precision, int frames, double p90,
              double duration = 10) {
  json line = {{"type", "interval"},
               {"time", utc(end)},
               {"duration_s", duration},
               {"host", "pi5"},
               // The daemon names both precisions after the FP32 file.
               {"model", "yolo11n_320_fp32"},
               {"precision", precision},
               {"input", {320, 320}},
               {"threads", 2},
               {"frames", frames},
               {"fps", frames / duration},
               {"dropped", 0},
               {"latency_ms",
                {{"inference", {{"p50", p90 * 0.9}, {"p90", p90}, {"p99", p90 * 1.1}}},
                 {"end_to_end", {{"p50", p90 + 1}, {"p90", p90 + 2}, {"p99", p90 + 3}}}}},
               {"detections", json::object()},
               {"telemetry_samples", 10}};
  return line;
}

json event(double at, const std::string& name, json fields = json::object()) {
  json line = {{"type", "event"}, {"event", name}, {"time", utc(at)}};
  line.update(fields);
  return line;
}

void write_lines(const fs::path& file, const std::vector<json>& lines,
                 const std::string& tail = "") {
  fs::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary);
  for (const auto& line : lines) out << line.dump() << "\n";
  out << tail;
}

bool matplotlib_installed() {
  return std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") == 0;
}

// `yolo-edge report LOGS --out OUT`: what it printed and the report.md it wrote ("" when none).
struct ReportRun {
  CliResult run;
  std::string md;
};

ReportRun run_report(const fs::path& logs, const fs::path& out) {
  CliResult run = run_cli({"report", logs.string(), "--out", out.string()});
  return {std::move(run), file_text(out / "report.md")};
}

bool is_png(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  char magic[8] = {};
  in.read(magic, sizeof magic);
  return in && std::string(magic, 8) == "\x89PNG\r\n\x1a\n";
}

// Checks what the plot step did: PNGs when Debian's matplotlib is there, else status 1 and
// report.md saying how to get it.
void expect_plots(const CliResult& r, const fs::path& out, const std::vector<std::string>& made,
                  const std::vector<std::string>& not_made) {
  const std::string md = file_text(out / "report.md");
  if (!matplotlib_installed()) {
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_TRUE(contains(md, "python3-matplotlib is not installed")) << md;
    return;
  }
  EXPECT_EQ(r.status, 0) << r.err;
  for (const auto& png : made) {
    EXPECT_TRUE(is_png(out / png)) << png;
    EXPECT_TRUE(contains(md, "](" + png + ")")) << md;
  }
  for (const auto& png : not_made) {
    EXPECT_FALSE(fs::exists(out / png)) << png;
    EXPECT_FALSE(contains(md, png)) << md;
  }
}

// FP32 for a minute, a swap, INT8 for a minute; temperature, clock, power and energy throughout,
// the Pi firmware's throttle flags set in the last 20 s; two thread decisions.
std::vector<json> two_precisions_log() {
  std::vector<json> lines = {
      event(0, "start", {{"version", "0.1.0"}}),
      event(0.1, "sensors", {{"found", {"1 thermal zone"}}, {"missing", json::array()}}),
      event(2, "threads",
            {{"from", 1}, {"to", 2}, {"kind", "explore"}, {"reason", "exploring: 2 threads next"}}),
      event(4, "threads",
            {{"from", 2},
             {"to", 2},
             {"kind", "settle"},
             {"reason", "settled on 2 threads: 30.0 ms | 50.0 ms at 1"}})};
  for (int k = 0; k < 12; ++k) {
    const bool int8 = k >= 6;
    json line = int8 ? interval(10.0 * (k + 1), "int8", 150, 30)
                     : interval(10.0 * (k + 1), "fp32", 100, 50);
    line["temp_c"] = {{"cpu-thermal", 50.0 + k}};
    line["temp_max_c"] = 50.0 + k;
    line["clock_mhz"] = {2400.0, 2400.0, 2400.0, 2400.0};
    line["arm_clock_mhz"] = k >= 10 ? 1500.0 : 2400.0;
    const bool throttled = k >= 10;
    line["throttle"] = {{"raw", throttled ? "0x4" : "0x0"},
                        {"under_voltage", false},
                        {"frequency_capped", false},
                        {"throttled", throttled},
                        {"soft_temp_limit", false}};
    const double watts = int8 ? 4.5 : 5.0;
    line["power_w"] = watts;
    line["power_sources_w"] = {{"pmic", watts}};
    line["energy_per_frame_mj"] = watts * 10 * 1000 / line["frames"].get<double>();
    lines.push_back(line);
    if (k == 5) {
      lines.push_back(event(60.0, "precision_chosen",
                            {{"precision", "int8"},
                             {"decided", true},
                             {"reason", "INT8: 30.0 ms | 50.0 ms"},
                             {"fp32_ms", 50.0},
                             {"fp32_threads", 2},
                             {"int8_ms", 30.0},
                             {"int8_threads", 2},
                             {"speedup", 1.667},
                             {"map50", 0.9812}}));
      lines.push_back(event(60.05, "swap",
                            {{"from", "yolo11n_320_fp32"},
                             {"from_precision", "fp32"},
                             {"to", "yolo11n_320_fp32"},
                             {"to_precision", "int8"},
                             {"frames_lost", 0},
                             {"gap_ms", 80.5}}));
    }
  }
  return lines;
}

TEST(Report, TwoPrecisionsWithEverySensorGiveTheTableAndThreePlots) {
  TempFolder dir;
  const fs::path log = dir.path() / "logs" / "yolo-edge.jsonl";
  write_lines(log, two_precisions_log());
  const fs::path out = dir.path() / "report";
  const auto [r, md] = run_report(log, out);
  EXPECT_TRUE(contains(md,
                       "From 2026-11-23 19:40:00 to 2026-11-23 19:42:00 UTC (2.0 min) on "
                       "pi5: 12 interval lines and 6 events"))
      << md;
  // FPS = frames / time; p90 weighted by frames; temperature mean over time / highest; energy
  // per frame over the frames; time throttled over the time with flags.
  expect_contains_all(md, {"| fp32 | yolo11n_320_fp32 | 60 s | 600 | 10.00 | 50.00 | 52.00 | "
                           "52.5 / 55.0 | 2400 | 5.00 | 500.0 | 0 s (0 %) | 2: 100 % |",
                           "| int8 | yolo11n_320_fp32 | 60 s | 900 | 15.00 | 30.00 | 32.00 | "
                           "58.5 / 61.0 | 2100 | 4.50 | 300.0 | 20 s (33 %) | 2: 100 % |",
                           "int8 / fp32: FPS 1.50x, p90 inference speedup 1.67x, energy per "
                           "frame 0.60x.",
                           "2 decisions (explore 1, settle 1)"});
  // A '|' in a reason would break the table.
  expect_contains_all(
      md, {"| 2 -> 2 | settle | settled on 2 threads: 30.0 ms / 50.0 ms at 1 |",
           "| 2026-11-23 19:41:00 | yolo11n_320_fp32 fp32 | yolo11n_320_fp32 int8 | 0 | "
           "80.5 |",
           "| 2026-11-23 19:41:00 | int8 | 50.0 (2) | 30.0 (2) | 1.67x | 0.981 | "
           "INT8: 30.0 ms / 50.0 ms |"});
  EXPECT_FALSE(contains(md, "Only fp32")) << md;
  EXPECT_FALSE(contains(md, "No power")) << md;
  // No INT8 checks in these logs: nothing of them, not zeros.
  EXPECT_FALSE(contains(md, "agreement")) << md;
  EXPECT_FALSE(contains(md, "INT8 checks")) << md;

  std::ifstream in(out / "timeline.json");
  const json timeline = json::parse(in);
  EXPECT_EQ(timeline.at("intervals").size(), 12u);
  EXPECT_EQ(timeline.at("decisions").size(), 2u);
  EXPECT_EQ(timeline.at("swaps").size(), 1u);
  EXPECT_EQ(timeline.at("choices").size(), 1u);
  EXPECT_EQ(timeline.at("precisions"), json({"fp32", "int8"}));
  expect_plots(r, out, {"performance.png", "device.png", "power.png"}, {});
}

// The same log with the live INT8 checks on: their agreement at each interval's end (none judged
// in the first), checks done, an int8_drift warning, and the floor precision_chosen recorded.
std::vector<json> checks_log() {
  std::vector<json> lines = two_precisions_log();
  const double agreement[12] = {-1,   0.97, 0.96, 0.97, 0.98, 0.96,
                                0.95, 0.93, 0.91, 0.90, 0.92, 0.94};
  int k = 0;
  for (auto& line : lines) {
    if (line["type"] != "interval") continue;
    if (agreement[k] >= 0) line["int8_agreement"] = agreement[k];
    line["int8_checks"] = k < 6 ? 2 : 3;
    ++k;
  }
  for (auto& line : lines) {
    if (line["type"] == "event" && line["event"] == "precision_chosen") line["min_map50"] = 0.93;
  }
  lines.push_back(event(100, "int8_drift",
                        {{"level", "warning"},
                         {"message",
                          "INT8's agreement with FP32 0.910 < 0.930 (model.auto_min_map50) for "
                          "1.0 min: INT8 keeps running (checks.drift_action: warn)"},
                         {"phase", "warned"},
                         {"action", "warn"},
                         {"min_map50", 0.93}}));
  return lines;
}

TEST(Report, TheInt8ChecksAgreementIsTabledBesideFpsAndPlottedWithItsFloorAndDrift) {
  TempFolder dir;
  const fs::path log = dir.path() / "logs" / "yolo-edge.jsonl";
  write_lines(log, checks_log());
  const fs::path out = dir.path() / "report";
  const auto [r, md] = run_report(log, out);
  // fp32: 0.97, 0.96, 0.97, 0.98, 0.96 (median 0.97, last 0.96), 6 intervals x 2 checks; int8:
  // 0.95, 0.93, 0.91, 0.90, 0.92, 0.94 (median 0.925), 6 x 3.
  expect_contains_all(
      md,
      {"The floor (model.auto_min_map50, as the logs record it): 0.930.",
       "| 2: 100 % | 0.960 / 0.970 / 0.960 | 12 |", "| 2: 100 % | 0.900 / 0.925 / 0.940 | 18 |",
       "## INT8 checks' events",
       "| 2026-11-23 19:41:40 | int8_drift | warned | warn | INT8's agreement with FP32 0.910 < "
       "0.930"});

  std::ifstream in(out / "timeline.json");
  const json timeline = json::parse(in);
  const json& rows = timeline.at("intervals");
  ASSERT_EQ(rows.size(), 12u);
  EXPECT_TRUE(rows[0].at("int8_agreement").is_null());
  EXPECT_EQ(rows[0].at("int8_checks"), 2);
  EXPECT_DOUBLE_EQ(rows[9].at("int8_agreement").get<double>(), 0.90);
  ASSERT_EQ(timeline.at("int8_events").size(), 1u);
  EXPECT_EQ(timeline.at("int8_events")[0].at("phase"), "warned");
  EXPECT_EQ(timeline.at("floors").size(), 2u);
  expect_plots(r, out, {"performance.png", "device.png", "power.png"}, {});
  if (matplotlib_installed()) {
    EXPECT_TRUE(contains(md,
                         "![FPS, the INT8 checks' agreement with FP32, inference latency and "
                         "threads over time, per precision](performance.png)"))
        << md;
  }
}

TEST(Report, RotatedAndDamagedFilesInAFolderAreReadInOrderWithTheGapNamed) {
  TempFolder dir;
  const fs::path logs = dir.path() / "logs";
  // Oldest first: .2, .1, then the current file. A minute is missing between .2 and .1 (the
  // daemon was stopped); .1 holds a line of garbage; the current file's last line was cut off.
  write_lines(logs / "yolo-edge.jsonl.2",
              {interval(10, "fp32", 90, 40), interval(20, "fp32", 90, 40)});
  write_lines(logs / "yolo-edge.jsonl.1", {interval(90, "fp32", 90, 40)}, "{garbage\n");
  write_lines(logs / "yolo-edge.jsonl", {interval(100, "fp32", 90, 40)},
              R"({"type":"interval","time":"2026-11-23T19:41:50.000Z","durat)");
  const fs::path out = dir.path() / "report";
  const auto [r, md] = run_report(logs, out);
  expect_contains_all(md, {"4 interval lines", "| fp32 | yolo11n_320_fp32 | 40 s | 360 | 9.00 |",
                           "1 gap(s) without any line (60 s)",
                           "| 2026-11-23 19:40:20 | 2026-11-23 19:41:20 | 60 s |",
                           (logs / "yolo-edge.jsonl.1").string() + ":2: not JSON",
                           (logs / "yolo-edge.jsonl").string() + ":2: truncated last line"});
  EXPECT_TRUE(contains(r.err, "yolo-edge report: ")) << r.err;
  expect_plots(r, out, {"performance.png"}, {});
}

TEST(Report, OnePrecisionWithoutPowerOrThrottleSaysWhatIsMissing) {
  TempFolder dir;
  std::vector<json> lines = {event(0, "sensors",
                                   {{"found", {"1 thermal zone (x86_pkg_temp)"}},
                                    {"missing",
                                     {"RAPL: /sys/class/powercap: Permission denied "
                                      "(run as root)"}}})};
  for (int k = 1; k <= 6; ++k) {
    json line = interval(10.0 * k, "fp32", 120, 55);
    line["temp_c"] = {{"x86_pkg_temp", 40.0 + k}};
    line["clock_mhz"] = {3000.0, 3000.0};
    lines.push_back(line);
  }
  // An interval without frames: the camera went away.
  json idle = interval(70, "fp32", 0, 0);
  idle.erase("latency_ms");
  lines.push_back(idle);
  const fs::path log = dir.path() / "x86.jsonl";
  write_lines(log, lines);
  const fs::path out = dir.path() / "report";
  const auto [r, md] = run_report(log, out);
  expect_contains_all(md,
                      {"| fp32 | yolo11n_320_fp32 | 60 s | 720 | 12.00 | 55.00 | 57.00 | "
                       "43.5 / 46.0 | 3000 | n/a | n/a | n/a | 2: 100 % |",
                       "Only fp32 ran in these logs", "No power readings",
                       "RAPL: /sys/class/powercap: Permission denied", "No throttle flags",
                       "No thread-count decisions", "1 interval line(s) (10 s) without frames"});
  expect_plots(r, out, {"performance.png", "device.png"}, {"power.png"});
}

// A minute of a real yolo-edged run on this project's x86 machine (scripts/field-report-run.sh
// --minutes 1 --interval 2): six phases switching FP32 <-> INT8 and the thread mode by SIGHUP;
// no thermal zone, clock, throttle flags or power source there.
fs::path daemon_log() {
  return yolo::test::source_dir() / "tests" / "cli" / "data" / "daemon-field-log.jsonl";
}

std::string section(const std::string& md, const std::string& heading) {
  const auto start = md.find(heading);
  if (start == std::string::npos) return "";
  return md.substr(start, md.find("\n## ", start + 1) - start);
}

TEST(Report, ARealDaemonLogReadsTheSameWholeOrRotated) {
  TempFolder dir;
  const fs::path whole = dir.path() / "whole";
  const auto [r, md] = run_report(daemon_log(), whole);
  expect_contains_all(
      md, {"31 interval lines and 30 events", "| fp32 | yolo11n_320_fp32 | 30 s | 546 | 18.25 |",
           "| int8 | yolo11n_320_fp32 | 30 s | 1039 | 34.65 |",
           "13 decisions (explore 5, fixed 1, restart 3, settle 4)",
           "| yolo11n_320_fp32 fp32 | yolo11n_320_fp32 int8 | 0 |", "No power readings",
           "core clocks: no cpufreq"});
  expect_plots(r, whole, {"performance.png"}, {"device.png", "power.png"});

  // The same lines in three rotated files, oldest first .2, .1, then the current one.
  std::ifstream in(daemon_log());
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  const fs::path logs = dir.path() / "logs";
  fs::create_directories(logs);
  const std::size_t cuts[] = {0, 20, 45, lines.size()};
  const char* names[] = {"yolo-edge.jsonl.2", "yolo-edge.jsonl.1", "yolo-edge.jsonl"};
  for (int f = 0; f < 3; ++f) {
    std::ofstream out(logs / names[f], std::ios::binary);
    for (std::size_t k = cuts[f]; k < cuts[f + 1]; ++k) out << lines[k] << "\n";
  }
  const fs::path rotated = dir.path() / "rotated";
  const std::string rotated_md = run_report(logs, rotated).md;
  for (const char* heading : {"## Precisions", "## Thread-count decisions", "## Precision switches",
                              "## What these logs do not tell"}) {
    EXPECT_EQ(section(rotated_md, heading), section(md, heading)) << heading;
    EXPECT_FALSE(section(md, heading).empty()) << heading;
  }
}

// An "object" event line as the field log writes it (docs/field-log.md): the event's JSON with its
// type as event_type.
json object_line(double at, const std::string& type, const std::string& label, json place) {
  json fields = {{"id", 1},       {"event_type", type}, {"camera", "main"},
                 {"track_id", 3}, {"class", 0},         {"label", label},
                 {"score", 0.8},  {"best_score", 0.9},  {"box", {1, 2, 3, 4}},
                 {"frame", 10},   {"level", "info"},    {"message", label + " " + type}};
  fields.update(place);
  return event(at, "object", fields);
}

TEST(Report, ObjectEventsAreCountedPerLineDirectionAndZone) {
  TempFolder dir;
  std::vector<json> lines;
  for (int k = 1; k <= 3; ++k) lines.push_back(interval(10.0 * k, "fp32", 100, 50));
  // road: cars and people crossing both ways; path: one bicycle out; door: people entering (and
  // leaving, which is not a row of the table), one loitering; new and end count as events only.
  struct Crossing {
    const char* line;
    const char* label;
    const char* direction;
    int times;
  };
  const Crossing crossings[] = {{"road", "car", "in", 7},
                                {"road", "car", "out", 3},
                                {"road", "person", "in", 2},
                                {"path", "bicycle", "out", 1}};
  long long events = 0;
  double at = 1;
  for (const auto& c : crossings) {
    for (int i = 0; i < c.times; ++i, ++events, at += 0.1) {
      lines.push_back(
          object_line(at, "cross", c.label, {{"line", c.line}, {"direction", c.direction}}));
    }
  }
  const int entries = 4;
  for (int i = 0; i < entries; ++i, events += 2, at += 0.1) {
    lines.push_back(object_line(at, "enter", "person", {{"zone", "door"}}));
    lines.push_back(object_line(at, "leave", "person", {{"zone", "door"}, {"duration_s", 2.5}}));
  }
  lines.push_back(object_line(at, "loiter", "person", {{"zone", "door"}, {"duration_s", 30}}));
  lines.push_back(object_line(at, "new", "dog", json::object()));
  lines.push_back(object_line(at, "end", "dog", {{"duration_s", 4}}));
  events += 3;
  std::stable_sort(lines.begin(), lines.end(),
                   [](const json& a, const json& b) { return a["time"] < b["time"]; });
  const fs::path log = dir.path() / "objects.jsonl";
  write_lines(log, lines);

  const auto [r, md] = run_report(log, dir.path() / "report");
  const std::string objects = section(md, "## Tracked objects");
  expect_contains_all(
      objects, {std::to_string(events) + " object events",
                "| camera | line | in | out | in by class | out by class |",
                "| main | path | 0 | 1 | - | bicycle 1 |",
                "| main | road | " + std::to_string(7 + 2) + " | 3 | car 7, person 2 | car 3 |",
                "| camera | zone | entries | loiter events | entries by class |",
                "| main | door | " + std::to_string(entries) + " | 1 | person " +
                    std::to_string(entries) + " |"});
  // Lines come before zones, each in name order.
  EXPECT_LT(objects.find("| main | path |"), objects.find("| main | road |")) << objects;
  EXPECT_LT(objects.find("| main | road |"), objects.find("| main | door |")) << objects;
  EXPECT_TRUE(contains(md, std::to_string(events) + " events from")) << md;
}

TEST(Report, LogsWithoutObjectEventsHaveNoTrackedObjectsSection) {
  TempFolder dir;
  const fs::path log = dir.path() / "plain.jsonl";
  write_lines(log, {interval(10, "fp32", 100, 50), event(11, "stop")});
  const auto [r, md] = run_report(log, dir.path() / "report");
  EXPECT_FALSE(md.empty()) << r.err;
  EXPECT_FALSE(contains(md, "## Tracked objects")) << md;
}

TEST(Report, LogsWithoutIntervalLinesAreBadInput) {
  TempFolder dir;
  const fs::path log = dir.path() / "events.jsonl";
  write_lines(log, {event(0, "start"), event(1, "stop")});
  const auto r = run_cli({"report", log.string(), "--out", (dir.path() / "out").string()});
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(
      contains(r.err, "no interval lines with a time: nothing to report in " + log.string()))
      << r.err;
  EXPECT_FALSE(fs::exists(dir.path() / "out" / "report.md"));

  const auto missing = run_cli(
      {"report", (dir.path() / "nope.jsonl").string(), "--out", (dir.path() / "out").string()});
  EXPECT_EQ(missing.status, 2);
  EXPECT_TRUE(contains(missing.err, "no such file or folder")) << missing.err;
}

}  // namespace
}  // namespace yolo::test
