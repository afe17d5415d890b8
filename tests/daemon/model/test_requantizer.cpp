// SPDX-License-Identifier: Apache-2.0
// Requantizer: the reservoir's frames split into calibration and held ones, where a new file goes
// (never over an admin's model.int8_path), and the failures that keep FP32 (too few frames, a
// quantizer that fails, a file that cannot be checked), each said once with its reason. A real
// reservoir in a scratch folder; a shell script stands in for `yolo-edge quantize`. The way to a
// passing file is tested through the real daemon (test_model_manager).
#include "daemon/model/requantizer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "tests/daemon/event_recorder.h"
#include "tests/daemon/model/quantize_parts.h"
#include "tests/support/temp_folder.h"

namespace yolo::daemon {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

TEST(SplitFrames, HoldsBackEveryFourthJpegInNameOrder) {
  test::TempFolder folder;
  for (int i = 9; i >= 0; --i) folder.write("frame-000" + std::to_string(i) + ".jpg", "x");
  folder.write("index.json", "{}");
  const FrameSplit split = split_frames(folder.path());
  ASSERT_EQ(split.held.size(), 2u);
  EXPECT_EQ(split.held[0].filename(), "frame-0003.jpg");
  EXPECT_EQ(split.held[1].filename(), "frame-0007.jpg");
  ASSERT_EQ(split.calibration.size(), 8u);
  EXPECT_EQ(split.calibration.front().filename(), "frame-0000.jpg");
  EXPECT_EQ(split.calibration.back().filename(), "frame-0009.jpg");
}

TEST(RequantizeFiles, AMadeFileIsReplacedWhereItIs) {
  config::ModelConfig model;
  model.path = "/models/yolo11n.onnx";
  ModelTarget int8;
  int8.file = "/state/int8/yolo11n-0123-320.int8.onnx";
  const RequantizeFiles f = requantize_files(model, int8, "/state/int8");
  EXPECT_EQ(f.final_file, int8.file);
  EXPECT_EQ(f.candidate, "/state/int8/yolo11n-0123-320.candidate.int8.onnx");
  EXPECT_EQ(f.work, "/state/int8/requantize");
}

TEST(RequantizeFiles, AnAdminsInt8PathIsNeverWritten) {
  config::ModelConfig model;
  model.path = "/models/yolo11n.onnx";
  model.int8_path = "/models/yolo11n.int8.onnx";
  ModelTarget int8;
  // A second requantize starts from the first one's file: named after the admin's all the same.
  int8.file = "/state/int8/yolo11n.requantized.int8.onnx";
  const RequantizeFiles f = requantize_files(model, int8, "/state/int8");
  EXPECT_EQ(f.final_file, "/state/int8/yolo11n.requantized.int8.onnx");
  EXPECT_EQ(f.candidate, "/state/int8/yolo11n.requantized.candidate.int8.onnx");
}

struct Fixture {
  Fixture() {
    events.add(&recorded);
    config::Config c;
    c.model.quantize = config::Quantize::kAuto;
    c.model.calibration_frames = 8;
    reservoir.configure(c);
    reservoir.start();
    model.path = folder.path() / "models" / "m.onnx";
    model.int8_path = folder.path() / "models" / "m.int8.onnx";
    model.calibration_frames = 8;
    model.auto_min_map50 = 0.9;
    pair.fp32.file = model.path;
    pair.int8 = pair.fp32;
    pair.int8.file = model.int8_path;
    pair.int8.precision = config::Precision::kInt8;
    files = requantize_files(model, pair.int8, folder.path() / "int8");
    fs::create_directories(folder.path() / "int8");
  }
  ~Fixture() { reservoir.stop(); }

  void fill_reservoir() { daemon::fill_reservoir(reservoir, model.calibration_frames); }

  // Steps until the try ends, at most 30 s.
  std::optional<Requantizer::Outcome> run_to_end() {
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (std::chrono::steady_clock::now() < deadline) {
      if (auto outcome = requantizer.step()) return outcome;
      std::this_thread::sleep_for(20ms);
    }
    return std::nullopt;
  }

  test::TempFolder folder;
  Logger log{Logger::Sink::kStderr, config::LogLevel::kError};
  Events events{log};
  test::EventRecorder recorded;
  CalibrationReservoir reservoir{
      events, folder.path() / "state" / "calibration", {.offer_period = 0ms}};
  Requantizer requantizer{events, reservoir, fake_quantizer(folder.path())};
  config::ModelConfig model;
  ModelPair pair;
  RequantizeFiles files;
};

TEST(Requantizer, TooFewFramesFailAtOnceAndSaySo) {
  Fixture f;
  const auto outcome = f.requantizer.begin(f.model, f.pair, f.files, "drift");
  ASSERT_TRUE(outcome);
  ASSERT_TRUE(outcome->failure);
  EXPECT_NE(outcome->failure->find("holds 0 of the 8 frames"), std::string::npos)
      << *outcome->failure;
  EXPECT_FALSE(f.requantizer.active());
  EXPECT_NE(f.requantizer.pending_summary().find("requantize failed"), std::string::npos);
  EXPECT_EQ(f.recorded.count("quantize_started"), 0);
}

TEST(Requantizer, QuantizesOnTheFramesNotHeldBackAndAFailedQuantizerKeepsNothing) {
  Fixture f;
  f.fill_reservoir();
  f.folder.write("fail", "");
  f.folder.write("go", "");
  ASSERT_FALSE(f.requantizer.begin(f.model, f.pair, f.files, "agreement 0.2"));
  EXPECT_TRUE(f.requantizer.active());
  ASSERT_EQ(f.recorded.count("quantize_started"), 1);
  const nlohmann::json started = f.recorded.named("quantize_started")[0];
  EXPECT_EQ(started["trigger"], "drift");
  EXPECT_EQ(started["frames"], 6);
  EXPECT_EQ(started["held"], 2);
  // The child reads the linked calibration frames, not the reservoir's folder.
  EXPECT_EQ(
      std::distance(fs::directory_iterator(f.files.work / "calibration"), fs::directory_iterator()),
      6);
  const auto outcome = f.run_to_end();
  ASSERT_TRUE(outcome);
  ASSERT_TRUE(outcome->failure);
  EXPECT_NE(outcome->failure->find("quantizing failed"), std::string::npos) << *outcome->failure;
  EXPECT_NE(outcome->failure->find("no frames to calibrate on"), std::string::npos);
  EXPECT_FALSE(fs::exists(f.files.candidate));
  EXPECT_FALSE(fs::exists(f.files.final_file));
  EXPECT_NE(f.requantizer.pending_summary().find("FP32 runs until the checks try again"),
            std::string::npos);
}

TEST(Requantizer, AFileThatCannotBeCheckedIsNotPutInPlace) {
  Fixture f;
  f.fill_reservoir();
  f.folder.write("go", "");
  ASSERT_FALSE(f.requantizer.begin(f.model, f.pair, f.files, "agreement 0.2"));
  const auto outcome = f.run_to_end();
  ASSERT_TRUE(outcome);
  ASSERT_TRUE(outcome->failure);
  EXPECT_NE(outcome->failure->find("cannot be checked"), std::string::npos) << *outcome->failure;
  EXPECT_FALSE(fs::exists(f.files.candidate));
  EXPECT_FALSE(fs::exists(f.files.final_file));
  f.requantizer.cancel();
  EXPECT_EQ(f.requantizer.pending_summary(), "");
}

}  // namespace
}  // namespace yolo::daemon
