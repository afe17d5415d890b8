// SPDX-License-Identifier: Apache-2.0
// yolo-edged tracking objects end to end: the real binary on the traffic clip with a counting line
// counts the vehicles, keeps the counts and the events in its state folder at stop, and carries
// on from them after a restart; a reload that brings a bad zone keeps the running config.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/daemon/daemon_process.h"
#include "tests/support/fixtures.h"

namespace yolo::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* kLine =
    "lines:\n"
    "  - name: near_carriageway\n"
    "    from: [0.08, 0.55]\n"
    "    to: [0.85, 0.55]\n"
    "    in: below\n"
    "    classes: [car, truck, bus, motorcycle]\n";

std::string traffic_config(const DaemonSetup& s, const std::string& extra = "") {
  // Read as fast as the daemon takes it, every frame, on the file's own clock: the count is then
  // the clip's on any machine, however busy. Not reopened before the test stops the daemon.
  std::string text = config_text("  uri: " + fixture("video/traffic_720p_30fps.mp4") +
                                     "\n  loop: false\n  realtime: false\n",
                                 s.logs, "yolo11n_320_fp32") +
                     kLine + extra;
  const std::string quick = "reconnect_s: 0.5";
  text.replace(text.find(quick), quick.size(), "reconnect_s: 600");
  return text;
}

// What the daemon logs when the clip has ended.
constexpr const char* kEnded = "stopped delivering frames";

std::size_t count_of(const std::string& text, const std::string& marker) {
  std::size_t n = 0;
  for (auto at = text.find(marker); at != std::string::npos; at = text.find(marker, at + 1)) ++n;
  return n;
}

nlohmann::json read_json(const fs::path& file) {
  std::ifstream in(file);
  return nlohmann::json::parse(in);
}

std::int64_t crossed_in(const nlohmann::json& counts) {
  for (const auto& place : counts["places"]) {
    if (place["name"] == "near_carriageway") {
      std::int64_t n = 0;
      for (const auto& [label, tally] : place["total"].items())
        n += tally["in"].get<std::int64_t>();
      return n;
    }
  }
  return -1;
}

// Runs the daemon over the whole clip and stops it when the clip has ended.
void run_clip(const DaemonSetup& s) {
  const std::size_t seen = s.notify->messages().size();
  const std::size_t ended = count_of(s.daemon_output(), kEnded);
  auto daemon = s.start();
  ASSERT_TRUE(s.notify->wait_for("READY=1", seen, 60s)) << s.daemon_output();
  // The clip ends; the source then counts as lost, the daemon goes on.
  const auto deadline = std::chrono::steady_clock::now() + 120s;
  while (count_of(s.daemon_output(), kEnded) == ended &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(100ms);
  }
  ASSERT_GT(count_of(s.daemon_output(), kEnded), ended) << s.daemon_output();
  daemon->signal(SIGTERM);
  const auto status = daemon->wait_exit(10s);
  ASSERT_TRUE(status) << "did not exit after SIGTERM";
  EXPECT_EQ(*status, 0) << s.daemon_output();
}

TEST(ServiceTracking, CountsTheClipKeepsCountsAndEventsAndGoesOnAfterARestart) {
  YOLO_REQUIRE_FIXTURES();
  DaemonSetup s;
  s.write_config(traffic_config(s));
  run_clip(s);
  ASSERT_TRUE(fs::exists(s.state / "counts.json")) << s.daemon_output();
  const nlohmann::json first = read_json(s.state / "counts.json");
  // 11 vehicles cross (tests/tracking/data/traffic_crossings.json), as `yolo-edge track` counts.
  const std::int64_t counted = crossed_in(first);
  EXPECT_EQ(counted, 11) << first.dump();
  const nlohmann::json events = read_json(s.state / "events.json");
  ASSERT_GT(events["events"].size(), 0u);
  std::int64_t crossings = 0;
  for (const auto& e : events["events"]) crossings += e["type"] == "cross" ? 1 : 0;
  EXPECT_EQ(crossings, counted);
  const std::int64_t last_id = events["last_id"];
  EXPECT_EQ(events["events"].back()["id"], last_id);
  // No file half written is left beside them.
  for (const auto& entry : fs::directory_iterator(s.state)) {
    EXPECT_FALSE(entry.path().string().ends_with(".partial")) << entry.path();
  }

  // Again from the start of the clip: the counts go on from the first run's, the ids too.
  run_clip(s);
  const nlohmann::json second = read_json(s.state / "counts.json");
  EXPECT_EQ(crossed_in(second), 2 * counted) << second.dump();
  const nlohmann::json more = read_json(s.state / "events.json");
  EXPECT_GT(more["last_id"].get<std::int64_t>(), last_id);
  std::int64_t previous = 0;
  for (const auto& e : more["events"]) {
    EXPECT_GT(e["id"].get<std::int64_t>(), previous) << "ids only grow";
    previous = e["id"];
  }
}

TEST(ServiceTracking, AReloadWithABadZoneKeepsTheRunningConfig) {
  YOLO_REQUIRE_FIXTURES();
  DaemonSetup s;
  s.write_config(traffic_config(s));
  auto daemon = s.start();
  ASSERT_TRUE(s.notify->wait_for("READY=1", 0, 60s)) << s.daemon_output();
  const std::size_t seen = s.notify->messages().size();
  s.write_config(traffic_config(
      s, "zones:\n  - name: gate\n    points: [[0.1, 0.1], [0.5, 1.4], [0.2, 0.9]]\n"));
  daemon->signal(SIGHUP);
  ASSERT_TRUE(s.notify->wait_for("READY=1", seen, 10s));
  std::this_thread::sleep_for(1s);
  const std::string log = s.daemon_output();
  EXPECT_NE(log.find("zones[0].points[1]"), std::string::npos) << log;
  EXPECT_NE(log.find("outside the frame"), std::string::npos) << log;
  daemon->signal(SIGTERM);
  ASSERT_TRUE(daemon->wait_exit(10s));
  // The line of the running config kept counting.
  EXPECT_GE(crossed_in(read_json(s.state / "counts.json")), 0);
}

}  // namespace
}  // namespace yolo::test
