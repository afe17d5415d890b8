// SPDX-License-Identifier: Apache-2.0
// Int8Maker: quantize: auto's states, from collecting calibration frames to the INT8 file made or
// the failure that waits for a reload (daemon/model/int8_maker.cpp). A real reservoir in a
// scratch folder; a shell script stands in for `yolo-edge quantize`, so each test takes moments.
#include "daemon/model/int8_maker.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "tests/daemon/event_recorder.h"
#include "tests/daemon/model/quantize_parts.h"
#include "tests/support/temp_folder.h"

namespace yolo::daemon {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

struct Fixture {
  // `broken_state`: a file stands where the reservoir's folder should be made.
  explicit Fixture(bool broken_state = false) {
    events.add(&recorded);
    if (broken_state) folder.write("state", "a file where the state folder should be");
    config::Config c;
    c.model.quantize = config::Quantize::kAuto;
    c.model.calibration_frames = 2;
    reservoir.configure(c);
    reservoir.start();
    model.path = folder.path() / "models" / "m.onnx";
    model.calibration_frames = 2;
  }
  ~Fixture() { reservoir.stop(); }

  void fill_reservoir() { daemon::fill_reservoir(reservoir, model.calibration_frames); }

  void step(std::uint64_t generation = 0) {
    maker.step(model, make, runtime::InputSize::fixed(384, 640), generation);
  }

  // Steps every 20 ms until `done` holds, at most 30 s; whether it did.
  template <typename Done>
  bool step_until(Done done) {
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(20ms);
      step();
    }
    return true;
  }

  void touch(const std::string& name) { folder.write(name, ""); }

  test::TempFolder folder;
  Logger log{Logger::Sink::kStderr, config::LogLevel::kWarning};
  Events events{log};
  test::EventRecorder recorded;
  CalibrationReservoir reservoir{
      events, folder.path() / "state" / "calibration", {.offer_period = 0ms}};
  Int8Maker maker{events, reservoir, fake_quantizer(folder.path())};
  config::ModelConfig model;
  fs::path make = folder.path() / "int8" / "m.int8.onnx";
};

TEST(Int8Maker, CollectsCalibrationFramesFirst) {
  Fixture f;
  f.step();
  EXPECT_EQ(f.maker.pending_summary(), "int8 pending: collecting calibration frames 0/2");
  EXPECT_EQ(f.recorded.count("quantize_started"), 0);
}

TEST(Int8Maker, AReservoirThatCannotKeepFramesIsAFailure) {
  Fixture f(true);
  f.step();
  EXPECT_NE(f.maker.pending_summary().find("int8 failed: cannot create"), std::string::npos)
      << f.maker.pending_summary();
  EXPECT_NE(f.maker.pending_summary().find("quantize: auto cannot work"), std::string::npos);
}

TEST(Int8Maker, QuantizesOnceTheFramesAreKeptAndSaysWhenItIsDone) {
  Fixture f;
  f.fill_reservoir();
  f.step();
  ASSERT_EQ(f.recorded.count("quantize_started"), 1);
  const nlohmann::json started = f.recorded.named("quantize_started")[0];
  EXPECT_NE(started["message"].get<std::string>().find(
                "quantizing m.onnx to INT8 on 2 calibration frames from this camera"),
            std::string::npos)
      << started.dump();
  EXPECT_EQ(started["file"], f.make.string());
  EXPECT_EQ(f.maker.pending_summary(), "int8 pending: quantizing (starting)");
  // The quantizer's last line is the progress.
  EXPECT_TRUE(f.step_until([&] {
    return f.maker.pending_summary() == "int8 pending: quantizing (calibrated 2 frame(s))";
  })) << f.maker.pending_summary();

  f.touch("go");
  ASSERT_TRUE(f.step_until([&] { return f.recorded.count("quantize_done") == 1; }));
  EXPECT_EQ(f.maker.pending_summary(), "int8 pending: quantizing (done; loading the INT8 model)");
  EXPECT_TRUE(fs::exists(f.make));
  std::string args;
  std::getline(std::ifstream(f.folder.path() / "args.txt"), args);
  EXPECT_EQ(args, "quantize --model " + f.model.path.string() + " --calib " +
                      f.reservoir.dir().string() + " --frames 2 --out " + f.make.string() +
                      " --report " + fs::path(f.make).replace_extension(".json").string() +
                      " --imgsz 384,640");
}

TEST(Int8Maker, AFailedQuantizationWaitsForAReload) {
  Fixture f;
  f.touch("go");
  f.touch("fail");
  f.fill_reservoir();
  f.step();
  ASSERT_TRUE(f.step_until([&] { return f.recorded.count("quantize_failed") == 1; }));
  const std::string why = "yolo-edge quantize exited with status 3: no frames to calibrate on";
  EXPECT_EQ(f.maker.pending_summary(), "int8 failed: " + why);
  const nlohmann::json failed = f.recorded.named("quantize_failed")[0];
  EXPECT_EQ(failed["message"], "quantizing " + f.model.path.string() + " failed: " + why +
                                   "; running fp32 until a reload");
  EXPECT_EQ(failed["error"], why);

  for (int i = 0; i < 5; ++i) f.step();
  EXPECT_EQ(f.recorded.count("quantize_started"), 1);
  EXPECT_EQ(f.maker.pending_summary(), "int8 failed: " + why);
  f.step(1);
  EXPECT_EQ(f.recorded.count("quantize_started"), 2);
}

TEST(Int8Maker, AFolderItCannotWriteIntoIsAFailureThatWaitsForAReload) {
  Fixture f;
  f.touch("int8");
  f.fill_reservoir();
  f.step();
  f.step();
  EXPECT_EQ(f.recorded.count("quantize_started"), 0);
  ASSERT_EQ(f.recorded.count("quantize_failed"), 1);
  EXPECT_NE(f.recorded.named("quantize_failed")[0]["message"].get<std::string>().find(
                "cannot write the INT8 model into " + (f.folder.path() / "int8").string()),
            std::string::npos);
  EXPECT_NE(f.maker.pending_summary().find("int8 failed: cannot write the INT8 model"),
            std::string::npos);
  f.step(1);
  EXPECT_EQ(f.recorded.count("quantize_failed"), 2);
}

TEST(Int8Maker, AnotherFileEndsTheQuantizationQuietlyAndDropSaysSo) {
  Fixture f;
  f.fill_reservoir();
  f.step();
  ASSERT_EQ(f.recorded.count("quantize_started"), 1);
  // Another file to make (the model changed): the old quantization ends without a word.
  f.make = f.folder.path() / "int8" / "other.int8.onnx";
  f.step();
  EXPECT_EQ(f.recorded.count("quantize_started"), 2);
  EXPECT_EQ(f.recorded.named("quantize_started")[1]["file"], f.make.string());
  EXPECT_EQ(f.recorded.count("quantize_cancelled"), 0);

  // Nothing to make any more: said once.
  f.maker.drop();
  f.maker.drop();
  EXPECT_EQ(f.recorded.count("quantize_cancelled"), 1);
}

}  // namespace
}  // namespace yolo::daemon
