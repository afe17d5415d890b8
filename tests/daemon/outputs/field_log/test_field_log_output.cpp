// SPDX-License-Identifier: Apache-2.0
// FieldLogOutput with its real thread and files: interval and event lines, swaps, a disk that fails
// and comes back, and stop() (daemon/outputs/field_log/field_log_output.cpp).
#include "daemon/outputs/field_log/field_log_output.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/eventually.h"
#include "tests/support/temp_folder.h"

namespace yolo::daemon {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using nlohmann::json;
using test::eventually;
using test::TempFolder;

FieldLogOptions options_in(const fs::path& dir, std::chrono::milliseconds interval = 200ms) {
  FieldLogOptions options;
  options.file.dir = dir;
  options.interval = interval;
  options.host = "test-host";
  options.stop_retry_pause = 50ms;
  return options;
}

std::shared_ptr<const ModelInfo> model(const std::string& precision) {
  auto info = std::make_shared<ModelInfo>();
  info->name = "yolo11n_320_" + precision;
  info->precision = runtime::parse_precision(precision).value();
  info->input_width = info->input_height = 320;
  info->names = vision::ClassNames({"person", "bicycle"});
  return info;
}

std::shared_ptr<const FrameResult> frame(std::shared_ptr<const ModelInfo> info, int index) {
  auto r = std::make_shared<FrameResult>();
  r->index = index;
  r->model = std::move(info);
  r->threads = 1;
  r->times = {2, 1, 20, 0.5, 24};
  r->detections = {{0, 0.9f, {}}};
  return r;
}

// An event the test can follow through the file by its "mark" field.
Event marked(const std::string& mark) {
  return {.kind = fieldlog::EventKind::kConfig,
          .time = std::chrono::system_clock::now(),
          .message = "config " + mark,
          .fields = {{"mark", mark}}};
}

// Every line of the field log in `dir` (rotated files first), parsed; a line that is not JSON
// fails the test.
std::vector<json> read_lines(const fs::path& dir, const std::string& name = "yolo-edge.jsonl") {
  std::vector<json> lines;
  std::vector<fs::path> files;
  for (int n = 9; n >= 1; --n) {
    if (fs::exists(dir / (name + "." + std::to_string(n)))) {
      files.push_back(dir / (name + "." + std::to_string(n)));
    }
  }
  files.push_back(dir / name);
  for (const auto& file : files) {
    std::ifstream in(file);
    std::string text;
    while (std::getline(in, text)) {
      lines.push_back(json::parse(text, nullptr, false));
      EXPECT_FALSE(lines.back().is_discarded()) << file << ": " << text;
    }
  }
  return lines;
}

std::vector<json> of_type(const std::vector<json>& lines, const std::string& type) {
  std::vector<json> kept;
  for (const auto& line : lines) {
    if (line.value("type", "") == type) kept.push_back(line);
  }
  return kept;
}

// The "event" names of the event lines, in file order.
std::vector<std::string> event_names(const std::vector<json>& lines) {
  std::vector<std::string> names;
  for (const auto& line : of_type(lines, "event")) names.push_back(line["event"]);
  return names;
}

// The marks of the marked() events, in file order.
std::vector<std::string> marks(const std::vector<json>& lines) {
  std::vector<std::string> found;
  for (const auto& line : of_type(lines, "event")) {
    if (line.contains("mark")) found.push_back(line["mark"]);
  }
  return found;
}

// Expects the "time" of lines[from], lines[from + 1], ... never to go back.
void expect_in_time_order(const std::vector<json>& lines, std::size_t from) {
  for (std::size_t i = from + 1; i < lines.size(); ++i) {
    EXPECT_LE(lines[i - 1]["time"].get<std::string>(), lines[i]["time"].get<std::string>()) << i;
  }
}

TEST(FieldLogOutput, IntervalLinesCarryFramesDetectionsAndDevice) {
  TempFolder tmp;
  FieldLogOutput log(options_in(tmp.path(), 300ms));
  log.start();
  telemetry::Sample sample;
  sample.mono = std::chrono::steady_clock::now();
  sample.thermal = {{"thermal_zone0", "cpu-thermal", 48.5}};
  log.telemetry(sample);
  for (int i = 0; i < 10; ++i) log.publish(frame(model("fp32"), i));
  ASSERT_TRUE(eventually([&] { return !of_type(read_lines(tmp.path()), "interval").empty(); }));
  log.stop();

  const auto intervals = of_type(read_lines(tmp.path()), "interval");
  ASSERT_GE(intervals.size(), 2u);  // at least the first one and the last, partial one
  const json& first = intervals.front();
  EXPECT_EQ(first["host"], "test-host");
  EXPECT_EQ(first["model"], "yolo11n_320_fp32");
  EXPECT_EQ(first["precision"], "fp32");
  EXPECT_EQ(first["input"], json::array({320, 320}));
  EXPECT_EQ(first["threads"], 1);
  EXPECT_EQ(first["frames"], 10);
  EXPECT_GT(first["fps"].get<double>(), 0);
  EXPECT_NEAR(first["duration_s"].get<double>(), 0.3, 0.1);
  EXPECT_EQ(first["latency_ms"]["inference"]["p50"], 20.0);
  EXPECT_EQ(first["detections"]["person"], 10);
  EXPECT_EQ(first["temp_c"]["cpu-thermal"], 48.5);
  EXPECT_EQ(first["time"].get<std::string>().size(),
            std::string("2026-01-01T00:00:00.000Z").size());
  std::int64_t frames = 0;
  for (const auto& line : intervals) frames += line["frames"].get<std::int64_t>();
  EXPECT_EQ(frames, 10);
  EXPECT_EQ(log.status()["ok"], true);
}

TEST(FieldLogOutput, IntervalsWithoutFramesStillWriteLines) {
  TempFolder tmp;
  FieldLogOutput log(options_in(tmp.path(), 100ms));
  log.start();
  ASSERT_TRUE(eventually([&] { return of_type(read_lines(tmp.path()), "interval").size() >= 3; }));
  log.stop();
  for (const auto& line : of_type(read_lines(tmp.path()), "interval")) {
    EXPECT_EQ(line["frames"], 0);
    EXPECT_FALSE(line.contains("latency_ms"));
  }
}

TEST(FieldLogOutput, EventsAreWrittenInOrderWithTheIntervalLines) {
  TempFolder tmp;
  FieldLogOutput log(options_in(tmp.path(), 150ms));
  log.start();
  using std::chrono::sys_days;
  log.event({.kind = fieldlog::EventKind::kStart,
             .time = sys_days{std::chrono::year{2026} / 11 / 23} + 19h + 7min + 26s + 123ms,
             .message = "starting",
             .fields = {{"version", "0.1.0"}}});
  log.publish(frame(model("fp32"), 0));
  ASSERT_TRUE(eventually([&] { return !of_type(read_lines(tmp.path()), "interval").empty(); }));
  log.event({.kind = fieldlog::EventKind::kThreads,
             .time = std::chrono::system_clock::now(),
             .message = "threads: exploring 2",
             .fields = {{"type", "explore"}, {"threads", 2}}});
  log.event({.kind = fieldlog::EventKind::kStop,
             .time = std::chrono::system_clock::now(),
             .message = "stopping"});
  log.stop();

  const auto lines = read_lines(tmp.path());
  ASSERT_GE(lines.size(), 5u);
  EXPECT_EQ(lines[0], json::parse(R"({"type":"event","event":"start",)"
                                  R"("time":"2026-11-23T19:07:26.123Z","level":"info",)"
                                  R"("message":"starting","version":"0.1.0"})"));
  EXPECT_EQ(lines[1]["type"], "interval");
  EXPECT_EQ(event_names(lines), (std::vector<std::string>{"start", "threads", "stop"}));
  const auto decision = of_type(lines, "event")[1];
  // The event's own "type" cannot take the line's key.
  EXPECT_EQ(decision["event_type"], "explore");
  EXPECT_EQ(decision["threads"], 2);
  // Times never go back in the file (after the start event, whose time the test made up).
  EXPECT_EQ(of_type(lines, "event")[2]["time"].get<std::string>().size(), 24u);
  expect_in_time_order(lines, 1);
  // The last line is the partial interval stop() closed.
  EXPECT_EQ(lines.back()["type"], "interval");
}

TEST(FieldLogOutput, TextThatIsNotUtf8IsWrittenWithReplacementCharacters) {
  TempFolder tmp;
  FieldLogOutput log(options_in(tmp.path(), 60s));
  log.start();
  auto info = std::make_shared<ModelInfo>(*model("fp32"));
  info->names = vision::ClassNames({"caf\xe9"});  // Latin-1, from a model's metadata
  log.publish(frame(info, 0));
  log.event({.kind = fieldlog::EventKind::kSourceLost,
             .time = std::chrono::system_clock::now(),
             .message = "camera lost",
             .fields = {{"device",
                         "/dev/v\xff"
                         "deo0"}}});
  log.stop();
  const auto lines = read_lines(tmp.path());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["device"], "/dev/v\uFFFDdeo0");
  EXPECT_EQ(lines[1]["detections"]["caf\uFFFD"], 1);
}

TEST(FieldLogOutput, ASwapClosesTheIntervalSoEachLineHasOnePrecision) {
  TempFolder tmp;
  FieldLogOutput log(options_in(tmp.path(), 60s));
  log.start();
  for (int i = 0; i < 4; ++i) log.publish(frame(model("fp32"), i));
  for (int i = 4; i < 10; ++i) log.publish(frame(model("int8"), i));
  log.stop();

  const auto intervals = of_type(read_lines(tmp.path()), "interval");
  ASSERT_EQ(intervals.size(), 2u);
  EXPECT_EQ(intervals[0]["precision"], "fp32");
  EXPECT_EQ(intervals[0]["frames"], 4);
  EXPECT_EQ(intervals[1]["precision"], "int8");
  EXPECT_EQ(intervals[1]["frames"], 6);
}

TEST(FieldLogOutput, StopWritesThePartialInterval) {
  TempFolder tmp;
  FieldLogOutput log(options_in(tmp.path(), 60s));
  log.start();
  for (int i = 0; i < 5; ++i) log.publish(frame(model("fp32"), i));
  std::this_thread::sleep_for(50ms);
  log.stop();
  const auto intervals = of_type(read_lines(tmp.path()), "interval");
  ASSERT_EQ(intervals.size(), 1u);
  EXPECT_EQ(intervals[0]["frames"], 5);
  EXPECT_LT(intervals[0]["duration_s"].get<double>(), 5.0);
  EXPECT_EQ(log.status()["ok"], true);
  EXPECT_EQ(log.status()["lines_written"], 1);
}

TEST(FieldLogOutput, ResultsTheQueueDroppedCountAsDropped) {
  TempFolder tmp;
  auto options = options_in(tmp.path(), 60s);
  options.queue_capacity = 16;
  FieldLogOutput log(options);
  // Before start() nothing takes from the queue: 100 results overflow it by 84.
  for (int i = 0; i < 100; ++i) log.publish(frame(model("fp32"), i));
  log.start();
  log.stop();
  const auto intervals = of_type(read_lines(tmp.path()), "interval");
  ASSERT_EQ(intervals.size(), 1u);
  EXPECT_EQ(intervals[0]["frames"], 16);
  EXPECT_EQ(intervals[0]["dropped"], 84);
  EXPECT_EQ(intervals[0]["unlogged"], 84);
}

// The folder turns into a file (what a failing mount or a mistaken admin can leave; unlike chmod
// it stops root too) and back: lines are held meanwhile and then written in order.
TEST(FieldLogOutput, AnUnwritableFolderHoldsLinesUntilItIsBack) {
  TempFolder tmp;
  const fs::path dir = tmp.path() / "logs";
  FieldLogOutput log(options_in(dir, 200ms));
  log.start();
  log.event(marked("before"));
  ASSERT_TRUE(eventually([&] { return marks(read_lines(dir)).size() == 1; }));

  fs::rename(dir, tmp.path() / "away");
  tmp.write("logs", "not a folder");
  for (const char* name : {"held1", "held2", "held3"}) log.event(marked(name));
  ASSERT_TRUE(eventually([&] {
    const json status = log.status();
    return status["ok"] == false && status["lines_held"].get<int>() >= 3;
  })) << log.status().dump();
  const json status = log.status();
  const std::string warning = status["warning"];
  EXPECT_NE(warning.find("cannot create the folder " + dir.string()), std::string::npos) << warning;
  EXPECT_NE(warning.find("Not a directory (ENOTDIR)"), std::string::npos) << warning;
  EXPECT_NE(warning.find("fix logging.dir"), std::string::npos) << warning;
  EXPECT_NE(warning.find("; holding "), std::string::npos) << warning;
  // Intervals go on while the disk is away.
  std::this_thread::sleep_for(500ms);

  fs::remove(dir);
  fs::rename(tmp.path() / "away", dir);
  ASSERT_TRUE(eventually([&] { return log.status()["ok"] == true; })) << log.status().dump();
  log.stop();

  const auto lines = read_lines(dir);
  EXPECT_EQ(marks(lines), (std::vector<std::string>{"before", "held1", "held2", "held3"}));
  EXPECT_GE(of_type(lines, "interval").size(), 3u);
  expect_in_time_order(lines, 0);
  EXPECT_EQ(log.status()["lines_lost"], 0);
  EXPECT_EQ(log.status()["lines_held"], 0);
}

// A full disk (/dev/full in place of the file) with more lines than the buffer holds: the
// oldest are dropped, and the first line after recovery says how many.
TEST(FieldLogOutput, AFullBufferDropsTheOldestAndSaysHowMany) {
  TempFolder tmp;
  auto options = options_in(tmp.path(), 300ms);
  options.max_held_lines = 5;
  FieldLogOutput log(options);
  const fs::path file = tmp.path() / "yolo-edge.jsonl";
  fs::create_symlink("/dev/full", file);
  log.start();
  for (int i = 0; i < 20; ++i) log.event(marked(std::string("e").append(std::to_string(i))));
  ASSERT_TRUE(eventually([&] { return log.status()["lines_lost"].get<int>() >= 15; }));
  EXPECT_EQ(log.status()["ok"], false);
  EXPECT_NE(log.status()["warning"].get<std::string>().find("(ENOSPC)"), std::string::npos);

  fs::remove(file);
  ASSERT_TRUE(eventually([&] { return log.status()["ok"] == true; })) << log.status().dump();
  log.stop();

  const auto lines = read_lines(tmp.path());
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0]["event"], "log_lines_lost");
  const auto lost = lines[0]["lines"].get<int>();
  EXPECT_GE(lost, 15);
  EXPECT_EQ(log.status()["lines_lost"], lost);
  EXPECT_NE(lines[0]["reason"].get<std::string>().find("ENOSPC"), std::string::npos);
  // What survived is the newest, in order: e19 is there, e0 is not.
  auto names = marks(lines);
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.back(), "e19");
  for (std::size_t i = 1; i < names.size(); ++i) {
    EXPECT_LT(std::stoi(names[i - 1].substr(1)), std::stoi(names[i].substr(1)));
  }
  EXPECT_EQ(std::find(names.begin(), names.end(), "e0"), names.end());
}

TEST(FieldLogOutput, StopReturnsPromptlyWhenTheDiskIsDead) {
  TempFolder tmp;
  FieldLogOptions options = options_in(tmp.path(), 200ms);
  options.stop_retry_pause = FieldLogOptions().stop_retry_pause;  // the daemon's own
  FieldLogOutput log(options);
  fs::create_symlink("/dev/full", tmp.path() / "yolo-edge.jsonl");
  log.start();
  for (int i = 0; i < 5; ++i) log.publish(frame(model("fp32"), i));
  log.event(marked("stop"));
  const auto begin = std::chrono::steady_clock::now();
  log.stop();
  const auto took = std::chrono::steady_clock::now() - begin;
  EXPECT_LT(took, 2s);
  // The status still tells what was not written.
  const json status = log.status();
  EXPECT_EQ(status["ok"], false);
  EXPECT_GE(status["lines_held"].get<int>(), 2);
  EXPECT_NE(status["warning"].get<std::string>().find("No space left on device"),
            std::string::npos);
}

TEST(FieldLogOutput, AReloadMovesTheLogFromTheNextLine) {
  TempFolder tmp;
  FieldLogOutput log(options_in(tmp.path() / "first", 60s));
  log.start();
  log.event(marked("one"));
  ASSERT_TRUE(eventually([&] { return !read_lines(tmp.path() / "first").empty(); }));

  config::Config config;
  config.logging.dir = tmp.path() / "second";
  config.logging.interval_s = 1;
  config.logging.max_bytes = 4096;
  config.logging.max_files = 2;
  log.configure(config);
  log.event(marked("two"));
  ASSERT_TRUE(eventually([&] { return !read_lines(tmp.path() / "second").empty(); }));
  // The interval is 1 s now.
  ASSERT_TRUE(eventually(
      [&] { return !of_type(read_lines(tmp.path() / "second"), "interval").empty(); }, 3s));
  log.stop();
  EXPECT_EQ(marks(read_lines(tmp.path() / "first")), std::vector<std::string>{"one"});
  EXPECT_EQ(marks(read_lines(tmp.path() / "second")), std::vector<std::string>{"two"});
  EXPECT_EQ(log.status()["file"], (tmp.path() / "second" / "yolo-edge.jsonl").string());
}

// A tracked object's event as FrameResult carries it.
tracking::ObjectEvent object_event(std::int64_t id, tracking::ObjectEventKind kind,
                                   const std::string& place) {
  tracking::ObjectEvent e;
  e.id = id;
  e.kind = kind;
  e.camera = "main";
  e.place = place;
  e.direction = tracking::Direction::kOut;
  e.track_id = 7;
  e.label = "person";
  e.box = {10, 20, 30, 60};
  e.score = 0.8f;
  e.wall = std::chrono::sys_days{std::chrono::year{2026} / 11 / 23} + 19h + 7min + 26s + 500ms;
  e.frame_index = 12;
  return e;
}

TEST(FieldLogOutput, ObjectEventsAreEventLinesWithTheEventsJson) {
  TempFolder tmp;
  FieldLogOutput log(options_in(tmp.path(), 60s));
  log.start();
  auto result = std::make_shared<FrameResult>(*frame(model("fp32"), 12));
  result->object_events = {object_event(41, tracking::ObjectEventKind::kCross, "road"),
                           object_event(42, tracking::ObjectEventKind::kEnter, "door")};
  log.publish(result);
  log.publish(frame(model("fp32"), 13));
  log.stop();

  const auto lines = read_lines(tmp.path());
  const auto events = of_type(lines, "event");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(event_names(lines), (std::vector<std::string>{"object", "object"}));
  // tracking::to_json's keys, its "type" as "event_type", and the event's own time.
  json expected = tracking::to_json(result->object_events[0]);
  expected.erase("type");
  for (const auto& [key, value] : expected.items()) EXPECT_EQ(events[0][key], value) << key;
  EXPECT_EQ(events[0]["event_type"], "cross");
  EXPECT_EQ(events[0]["time"], "2026-11-23T19:07:26.500Z");
  EXPECT_EQ(events[0]["line"], "road");
  EXPECT_EQ(events[0]["direction"], "out");
  EXPECT_EQ(events[0]["camera"], "main");
  EXPECT_EQ(events[0]["level"], "info");
  EXPECT_EQ(events[0]["message"], "person 7 crossed line road (out) on camera main");
  EXPECT_EQ(events[1]["event_type"], "enter");
  EXPECT_EQ(events[1]["zone"], "door");
  EXPECT_EQ(events[1]["id"], 42);
  // The frames are counted in the interval line as before.
  const auto intervals = of_type(lines, "interval");
  ASSERT_EQ(intervals.size(), 1u);
  EXPECT_EQ(intervals[0]["frames"], 2);
}

TEST(FieldLogOutput, PublishDoesNotWaitForTheDisk) {
  TempFolder tmp;
  FieldLogOutput log(options_in(tmp.path(), 60s));
  log.start();
  const auto info = model("fp32");
  const auto result = frame(info, 0);
  const auto begin = std::chrono::steady_clock::now();
  for (int i = 0; i < 10'000; ++i) log.publish(result);
  const auto took = std::chrono::steady_clock::now() - begin;
  log.stop();
  // A queue push each: far below a millisecond apiece even on a loaded machine.
  EXPECT_LT(took, 1s);
  const auto intervals = of_type(read_lines(tmp.path()), "interval");
  ASSERT_EQ(intervals.size(), 1u);
  EXPECT_EQ(intervals[0]["frames"].get<int>() + intervals[0]["dropped"].get<int>(), 10'000);
}

}  // namespace
}  // namespace yolo::daemon
