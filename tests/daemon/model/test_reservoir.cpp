// SPDX-License-Identifier: Apache-2.0
// CalibrationReservoir: a uniform sample of the camera's frames and a rolling share of recent
// ones, kept as JPEG files across restarts, above the state folder's free-space floor
// (daemon/model/reservoir.cpp). Real files in a scratch folder, a clock the test moves.
#include "daemon/model/reservoir.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <set>
#include <thread>
#include <vector>

#include <opencv2/imgcodecs.hpp>

#include "daemon/base/atomic_file.h"
#include "tests/daemon/event_recorder.h"
#include "tests/support/temp_folder.h"

namespace yolo::daemon {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

config::Config collecting(int frames) {
  config::Config c;
  c.model.quantize = config::Quantize::kAuto;
  c.model.calibration_frames = frames;
  return c;
}

// A flat grey frame whose level is `id` (0..255), which JPEG keeps exactly enough.
std::shared_ptr<const FrameResult> frame(int id) {
  auto r = std::make_shared<FrameResult>();
  r->frame = std::make_shared<const cv::Mat>(64, 64, CV_8UC3, cv::Scalar::all(id));
  return r;
}

int id_of(const fs::path& file) {
  return static_cast<int>(std::lround(cv::mean(cv::imread(file.string()))[0]));
}

// Offers one frame and waits until the reservoir's thread has looked at it.
void offer(CalibrationReservoir& r, int id) {
  const std::int64_t before = r.status()["seen"].get<std::int64_t>();
  r.publish(frame(id));
  for (int i = 0; i < 500 && r.status()["seen"].get<std::int64_t>() == before; ++i) {
    std::this_thread::sleep_for(1ms);
  }
}

struct Fixture {
  Fixture() { events.add(&recorded); }

  // Frames offered as fast as the test offers them, stamped by the test's clock.
  ReservoirOptions options() {
    return {.offer_period = 0ms, .clock = [this] {
              return std::chrono::system_clock::time_point(std::chrono::seconds(now_s.load()));
            }};
  }
  fs::path dir() const { return folder.path() / "calibration"; }
  // The slots' roles and times as the index has them.
  nlohmann::json index() const {
    std::ifstream in(dir() / "reservoir.json");
    return nlohmann::json::parse(in);
  }

  test::TempFolder folder;
  Logger log{Logger::Sink::kStderr, config::LogLevel::kWarning};
  Events events{log};
  test::EventRecorder recorded;
  // Seconds since the epoch: a day in late 2026.
  std::atomic<std::int64_t> now_s{1'795'000'000};
};

// Grey levels of the two scenes of the recent-share tests.
constexpr int kOldScene = 40;
constexpr int kNewScene = 200;

// Offers `frames` frames of grey `level`, one every `every` on the test's clock.
void watch(Fixture& f, CalibrationReservoir& r, int frames, int level, std::chrono::seconds every) {
  for (int i = 0; i < frames; ++i) {
    f.now_s += every.count();
    offer(r, level);
  }
}

// The levels of the frames of one role ("day" or "recent"), from the index and the files.
std::vector<int> levels(Fixture& f, const std::string& role) {
  std::vector<int> found;
  const nlohmann::json slots = f.index()["slots"];
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (slots[i]["role"] != role) continue;
    char name[32];
    std::snprintf(name, sizeof name, "frame-%04zu.jpg", i);
    found.push_back(id_of(f.dir() / name));
  }
  std::ranges::sort(found);
  return found;
}

TEST(Reservoir, KeepsItsFramesAcrossRestartsAndTrimsToTheCapacity) {
  Fixture f;
  const fs::path dir = f.folder.path() / "calibration";
  {
    CalibrationReservoir r(f.events, dir, {.offer_period = 0ms});
    r.configure(collecting(4));
    r.start();
    EXPECT_TRUE(r.wants_frame(FrameResult{}));
    for (int i = 0; i < 10; ++i) offer(r, i);
    EXPECT_EQ(r.count(), 4);
    EXPECT_EQ(r.status()["seen"], 10);
    r.stop();
  }
  for (int i = 0; i < 4; ++i) {
    EXPECT_TRUE(fs::exists(dir / ("frame-000" + std::to_string(i) + ".jpg"))) << i;
  }
  // No half-written files are left for a quantizer to trip on.
  for (const auto& e : fs::directory_iterator(dir)) {
    EXPECT_EQ(e.path().string().find(".partial"), std::string::npos) << e.path();
  }
  CalibrationReservoir again(f.events, dir, {.offer_period = 0ms});
  again.configure(collecting(2));
  again.start();
  EXPECT_EQ(again.count(), 2);
  EXPECT_EQ(again.status()["seen"], 10);
  EXPECT_FALSE(fs::exists(dir / "frame-0002.jpg"));
  // With quantize: off nothing is collected.
  config::Config off = collecting(2);
  off.model.quantize = config::Quantize::kOff;
  again.configure(off);
  EXPECT_FALSE(again.wants_frame(FrameResult{}));
  again.publish(frame(99));
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(again.status()["seen"], 10);
  again.stop();
}

// The day sample alone (no recent share): Algorithm R.
TEST(Reservoir, EveryFrameSeenIsEquallyLikelyToBeKept) {
  Fixture f;
  CalibrationReservoir r(f.events, f.folder.path() / "calibration",
                         {.recent_share = 0, .offer_period = 0ms});
  r.configure(collecting(8));
  r.start();
  constexpr int kOffers = 200;
  for (int i = 0; i < kOffers; ++i) offer(r, i);
  r.stop();
  ASSERT_EQ(r.count(), 8);
  double sum = 0;
  int late = 0;
  for (int slot = 0; slot < 8; ++slot) {
    const int id =
        id_of(f.folder.path() / "calibration" / ("frame-000" + std::to_string(slot) + ".jpg"));
    ASSERT_GE(id, 0);
    ASSERT_LT(id, kOffers);
    sum += id;
    late += id >= 8;
  }
  // A uniform sample of 0..199 has a mean of 99.5 with a standard deviation of 20.4 for 8
  // frames: 4 deviations either way; keeping only the first frames would give 3.5.
  EXPECT_GT(sum / 8, 99.5 - 4 * 20.4);
  EXPECT_LT(sum / 8, 99.5 + 4 * 20.4);
  EXPECT_GT(late, 0);
}

TEST(Reservoir, AFolderThatCannotBeMadeIsAWarningNotAFailure) {
  Fixture f;
  f.folder.write("state", "a file where the state folder should be");
  CalibrationReservoir r(f.events, f.folder.path() / "state" / "calibration",
                         {.offer_period = 0ms});
  r.configure(collecting(4));
  r.start();
  offer(r, 1);
  const nlohmann::json status = r.status();
  EXPECT_FALSE(status["ok"].get<bool>());
  EXPECT_NE(status["warning"].get<std::string>().find("quantize: auto cannot work"),
            std::string::npos)
      << status.dump();
  EXPECT_EQ(r.count(), 0);
  r.stop();
}

// 600 frames of an old scene over 16 hours, then 200 of a new one over 200 minutes: the recent
// half is all new scene, spread over the last two hours; the day half still holds the old scene
// (all 8 day frames from the new scene has odds of (200/800)^8, 1.5e-5).
TEST(Reservoir, TheRecentShareFillsFromRecentFramesWhileTheDayKeepsOldOnes) {
  Fixture f;
  CalibrationReservoir r(f.events, f.dir(), f.options());
  r.configure(collecting(16));
  r.start();
  watch(f, r, 600, kOldScene, 100s);
  nlohmann::json s = r.status();
  EXPECT_EQ(s["frames"], 16);
  EXPECT_EQ(s["recent_slots"], 8);
  EXPECT_EQ(s["recent_frames"], 8) << s.dump();
  watch(f, r, 200, kNewScene, 60s);
  r.stop();
  s = r.status();
  EXPECT_EQ(s["frames"], 16);
  EXPECT_EQ(s["seen"], 800);
  EXPECT_EQ(s["day_frames"], 8) << s.dump();
  EXPECT_EQ(s["recent_frames"], 8);
  EXPECT_EQ(s["stale_recent_frames"], 0);
  // One taken every 15 minutes (2 h / 8): spread over the window.
  EXPECT_LE(s["recent_newest_age_s"].get<int>(), 16 * 60) << s.dump();
  EXPECT_GE(s["recent_oldest_age_s"].get<int>(), 100 * 60) << s.dump();
  EXPECT_LE(s["recent_oldest_age_s"].get<int>(), 120 * 60) << s.dump();
  EXPECT_EQ(levels(f, "recent"), std::vector<int>(8, kNewScene));
  EXPECT_GT(std::ranges::count(levels(f, "day"), kOldScene), 0);
}

TEST(Reservoir, ARestartKeepsTheSplitAndThePace) {
  Fixture f;
  nlohmann::json before;
  {
    CalibrationReservoir r(f.events, f.dir(), f.options());
    r.configure(collecting(8));
    r.start();
    watch(f, r, 300, kOldScene, 60s);
    r.stop();
    before = r.status();
  }
  ASSERT_EQ(before["recent_frames"], 4) << before.dump();
  const nlohmann::json slots = f.index()["slots"];
  CalibrationReservoir again(f.events, f.dir(), f.options());
  again.configure(collecting(8));
  again.start();
  nlohmann::json after = again.status();
  EXPECT_EQ(after["day_frames"], before["day_frames"]);
  EXPECT_EQ(after["recent_frames"], 4);
  EXPECT_EQ(after["recent_newest_age_s"], before["recent_newest_age_s"]);
  EXPECT_EQ(after["recent_oldest_age_s"], before["recent_oldest_age_s"]);
  EXPECT_EQ(after["seen"], 300);
  // The next recent frame is due a period (30 min) after the newest one, not at the restart:
  // a minute later the recent frames are the same ones.
  f.now_s += 1;
  offer(again, kNewScene);
  std::set<std::int64_t> recent_times;
  const nlohmann::json now_slots = f.index()["slots"];
  for (const auto& slot : now_slots) {
    if (slot["role"] == "recent") recent_times.insert(slot["taken_ms"].get<std::int64_t>());
  }
  std::set<std::int64_t> saved_times;
  for (const auto& slot : slots) {
    if (slot["role"] == "recent") saved_times.insert(slot["taken_ms"].get<std::int64_t>());
  }
  EXPECT_EQ(recent_times, saved_times);
  // Three hours with no frame (the camera was away): the recent frames stay until replaced,
  // but are not recent any more.
  f.now_s += 3 * 3600;
  after = again.status();
  EXPECT_EQ(after["frames"], 8);
  EXPECT_EQ(after["recent_frames"], 0);
  EXPECT_EQ(after["stale_recent_frames"], 4);
  EXPECT_FALSE(after.contains("recent_newest_age_s"));
  // Frames again: the oldest are replaced first, one per period.
  watch(f, again, 70, kNewScene, 60s);
  after = again.status();
  EXPECT_EQ(after["recent_frames"], 3) << after.dump();
  EXPECT_EQ(after["stale_recent_frames"], 1);
  again.stop();
}

// A folder of a daemon from before the recent share: an index with only the counts. Its frames
// are day frames, all kept; recent frames take the place of random ones, one per period, until
// the day frames are down to their share.
TEST(Reservoir, AnIndexFromBeforeTheRecentShareLoadsAsDayFrames) {
  Fixture f;
  fs::create_directories(f.dir());
  for (int i = 0; i < 10; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "frame-%04d.jpg", i);
    cv::imwrite((f.dir() / name).string(), cv::Mat(64, 64, CV_8UC3, cv::Scalar::all(kOldScene)));
  }
  f.folder.write("calibration/reservoir.json", R"({"seen": 5000, "frames": 10})");
  CalibrationReservoir r(f.events, f.dir(), f.options());
  r.configure(collecting(10));
  r.start();
  nlohmann::json s = r.status();
  EXPECT_EQ(s["frames"], 10);
  EXPECT_EQ(s["day_frames"], 10);
  EXPECT_EQ(s["recent_frames"], 0);
  EXPECT_EQ(s["seen"], 5000);
  // One period is 2 h / 5 = 24 min: a frame a minute for 5 hours takes the five.
  for (int minute = 0; minute < 300; ++minute) {
    watch(f, r, 1, kNewScene, 60s);
    ASSERT_EQ(r.count(), 10) << "never fewer frames for the quantizer";
    // The first at once (or at the next frame, when the day sample took this one).
    if (minute == 1) {
      EXPECT_EQ(r.status()["recent_frames"], 1);
    }
  }
  r.stop();
  s = r.status();
  EXPECT_EQ(s["day_frames"], 5) << s.dump();
  EXPECT_EQ(s["recent_frames"], 5);
  EXPECT_EQ(levels(f, "recent"), std::vector<int>(5, kNewScene));
  EXPECT_EQ(f.index()["slots"].size(), 10u);
}

// The floor (events.min_free_mb) above the disk's free space: no frame is written, the frames
// kept stay, the status and the log say so once; below it again, collecting resumes.
TEST(Reservoir, TheFreeSpaceFloorStopsWritingAndCollectingResumesAfter) {
  Fixture f;
  CalibrationReservoir r(f.events, f.dir(), f.options());
  config::Config c = collecting(8);
  r.configure(c);
  r.start();
  watch(f, r, 4, kOldScene, 1s);
  ASSERT_EQ(r.count(), 4);
  c.events.min_free_mb = 1e9;
  r.configure(c);
  watch(f, r, 5, kNewScene, 1s);
  nlohmann::json s = r.status();
  EXPECT_EQ(r.count(), 4);
  EXPECT_EQ(s["seen"], 9);
  EXPECT_FALSE(s["ok"].get<bool>());
  const std::string warning = s["warning"];
  EXPECT_NE(warning.find("events.min_free_mb"), std::string::npos) << warning;
  EXPECT_NE(warning.find("the 4 kept stay"), std::string::npos) << warning;
  EXPECT_EQ(f.recorded.count("calibration_frames"), 1) << "said once";
  EXPECT_EQ(levels(f, "day"), std::vector<int>(4, kOldScene));
  for (const auto& e : fs::directory_iterator(f.dir())) {
    EXPECT_FALSE(is_partial_file(e.path())) << e.path();
  }
  c.events.min_free_mb = 0;
  r.configure(c);
  watch(f, r, 1, kNewScene, 1s);
  s = r.status();
  EXPECT_EQ(r.count(), 5);
  EXPECT_TRUE(s["ok"].get<bool>()) << s.dump();
  EXPECT_FALSE(s.contains("warning"));
  EXPECT_EQ(f.recorded.count("calibration_frames"), 1);
  r.stop();
}

}  // namespace
}  // namespace yolo::daemon
