// SPDX-License-Identifier: Apache-2.0
// The state output (daemon/outputs/state/state_output.cpp): counts and events kept in the state
// folder, written only when they changed, at most once a period, and at stop.
#include "daemon/outputs/state/state_output.h"

#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "daemon/core/state_files.h"
#include "tests/support/temp_folder.h"

namespace yolo::daemon {
namespace {

using namespace std::chrono_literals;

std::shared_ptr<const FrameResult> result_with(std::int64_t in, std::uint64_t version) {
  auto scene = std::make_shared<SceneState>();
  scene->camera = "main";
  tracking::PlaceCounts p;
  p.camera = "main";
  p.name = "road";
  p.line = true;
  p.total["car"] = {in, 0};
  scene->counts.places.push_back(p);
  scene->version = version;
  auto r = std::make_shared<FrameResult>();
  r->scene = std::move(scene);
  return r;
}

nlohmann::json read(const std::filesystem::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

TEST(StateOutput, WritesWhatChangedOncePerPeriodAndAtStop) {
  const test::TempFolder dir;
  Logger logger(Logger::Sink::kStderr, config::LogLevel::kError);
  Events events(logger);
  EventLog log(10);
  StateOutput saver(events, log, dir.path(), 300ms);
  saver.start();
  saver.publish(result_with(3, 1));
  std::vector<tracking::ObjectEvent> batch(2);
  log.add(batch);
  std::this_thread::sleep_for(500ms);
  ASSERT_TRUE(std::filesystem::exists(counts_file(dir.path())));
  EXPECT_EQ(read(counts_file(dir.path()))["places"][0]["total"]["car"]["in"], 3);
  EXPECT_EQ(read(events_file(dir.path()))["last_id"], 2);
  EXPECT_EQ(saver.status()["writes"], 2);
  // Nothing changed: nothing written again (an SD card wears with every write).
  std::this_thread::sleep_for(700ms);
  EXPECT_EQ(saver.status()["writes"], 2);
  saver.publish(result_with(4, 2));
  EXPECT_TRUE(saver.stop());
  EXPECT_EQ(read(counts_file(dir.path()))["places"][0]["total"]["car"]["in"], 4);
}

TEST(StateOutput, AFolderItCannotWriteIsAWarningNotAStop) {
  const test::TempFolder dir;
  Logger logger(Logger::Sink::kStderr, config::LogLevel::kError);
  Events events(logger);
  EventLog log(10);
  StateOutput saver(events, log, dir.path() / "missing", 100ms);
  saver.start();
  saver.publish(result_with(1, 1));
  std::this_thread::sleep_for(300ms);
  const nlohmann::json status = saver.status();
  EXPECT_FALSE(status["ok"].get<bool>());
  EXPECT_NE(status["warning"].get<std::string>().find("missing"), std::string::npos);
  EXPECT_TRUE(saver.stop());
}

}  // namespace
}  // namespace yolo::daemon
