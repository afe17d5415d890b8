// SPDX-License-Identifier: Apache-2.0
// CalibrationReservoir: a uniform sample of the camera's frames kept as JPEG files, across
// restarts (daemon/model/reservoir.cpp). Real files in a scratch folder.
#include "daemon/model/reservoir.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <thread>

#include <opencv2/imgcodecs.hpp>

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
  test::TempFolder folder;
  Logger log{Logger::Sink::kStderr, config::LogLevel::kWarning};
  Events events{log};
};

TEST(Reservoir, KeepsItsFramesAcrossRestartsAndTrimsToTheCapacity) {
  Fixture f;
  const fs::path dir = f.folder.path() / "calibration";
  {
    CalibrationReservoir r(f.events, dir, 0ms);
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
    EXPECT_EQ(e.path().string().find(".tmp"), std::string::npos) << e.path();
  }
  CalibrationReservoir again(f.events, dir, 0ms);
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

TEST(Reservoir, EveryFrameSeenIsEquallyLikelyToBeKept) {
  Fixture f;
  CalibrationReservoir r(f.events, f.folder.path() / "calibration", 0ms);
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
  CalibrationReservoir r(f.events, f.folder.path() / "state" / "calibration", 0ms);
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

}  // namespace
}  // namespace yolo::daemon
