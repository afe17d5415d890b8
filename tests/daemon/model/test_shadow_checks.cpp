// SPDX-License-Identifier: Apache-2.0
// The live INT8 checks on real engines: the tiny detector and its static INT8 file, made by the
// real `yolo-edge quantize`. Frames are handed over the way the inference thread hands them.
#include "daemon/model/shadow_checks.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <opencv2/core.hpp>

#include "config/config_loader.h"
#include "daemon/model/model_manager.h"
#include "tests/cli/tiny_detector.h"
#include "tests/daemon/event_recorder.h"
#include "tests/support/eventually.h"
#include "tests/support/fixtures.h"
#include "tests/support/run_process.h"
#include "tests/support/temp_folder.h"

namespace yolo::daemon {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class ShadowChecksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fp32_ = test::tiny_detector_model(folder_.path());
    int8_ = folder_.path() / "tiny.int8.onnx";
    const test::ProcessResult made =
        test::run_process({test::cli_path().string(), "quantize", "--model", fp32_.string(),
                           "--calib", test::one_image_folder(folder_.path()).string(),
                           "--keep-fp32", "none", "--out", int8_.string()});
    ASSERT_EQ(made.status, 0) << made.err;
    events_.add(&recorder_);
  }

  config::Config config(const std::string& checks) const {
    config::LoadOptions options;
    options.check_files = false;
    return config::parse_config("checks:\n" + checks, "test.yaml", options);
  }

  ShadowPair pair(const fs::path& fp32, const fs::path& int8) const {
    ModelTarget f{fp32, config::Precision::kFp32, {}, {}, config::Decoder::kAuto};
    ModelTarget i{int8, config::Precision::kInt8, {}, {}, config::Decoder::kAuto};
    return {detector_options(f), detector_options(i), runtime::Precision::kInt8};
  }

  // A frame as the inference thread publishes it, with its pixels.
  static std::shared_ptr<const FrameResult> frame(int i) {
    auto r = std::make_shared<FrameResult>();
    r->index = i;
    cv::Mat pixels(48, 64, CV_8UC3);
    cv::randu(pixels, cv::Scalar::all(0), cv::Scalar::all(255));
    r->frame = std::make_shared<const cv::Mat>(pixels);
    return r;
  }

  // Offers frames for `how_long`, each only when the checks ask for it, as inference does.
  static int offer(ShadowChecks& checks, std::chrono::milliseconds how_long) {
    int handed = 0;
    const auto end = std::chrono::steady_clock::now() + how_long;
    for (int i = 0; std::chrono::steady_clock::now() < end; ++i) {
      auto r = frame(i);
      if (checks.wants_frame(*r)) {
        checks.publish(r);
        ++handed;
      }
      std::this_thread::sleep_for(2ms);
    }
    return handed;
  }

  test::TempFolder folder_;
  fs::path fp32_;
  fs::path int8_;
  Logger log_{Logger::Sink::kStderr, config::LogLevel::kWarning};
  Events events_{log_};
  test::EventRecorder recorder_;
};

TEST_F(ShadowChecksTest, ChecksRunAtBothPrecisionsWithinTheBudget) {
  ShadowChecks checks(events_, nullptr);
  checks.configure(config("  budget_percent: 5\n"));
  checks.set_pair(pair(fp32_, int8_));
  checks.start();
  ASSERT_TRUE(test::eventually([&] { return checks.status()["idle_reason"].is_null(); }, 5s));
  const int handed = offer(checks, 3s);
  ASSERT_TRUE(test::eventually([&] { return checks.status()["checks_total"] == handed; }, 10s))
      << checks.status().dump();
  const nlohmann::json s = checks.status();
  EXPECT_GE(handed, 1);
  EXPECT_EQ(s["fp32"], fp32_.filename().string());
  EXPECT_EQ(s["int8"], int8_.filename().string());
  EXPECT_EQ(s["window_checks"], handed);
  EXPECT_EQ(s["trend"].size(), 6u);
  // The drift watch reads the same agreement: under the floor (0.9) it is "below" until
  // checks.drift_after_min has passed (the tiny detector's INT8, calibrated on one grey picture
  // and fed noise, may well be).
  ASSERT_FALSE(s["agreement"].is_null()) << s.dump();
  EXPECT_EQ(s["drift"]["phase"], s["agreement"].get<double>() < 0.9 ? "below" : "agrees")
      << s.dump();
  EXPECT_TRUE(s["ok"].get<bool>()) << s.dump();
  // Each check waits for its CPU time / 5 %: the CPU used over the checks' lifetime stays near
  // the budget (the first check is due at once, so it may be ahead by that one check).
  EXPECT_LE(s["used_share"].get<double>(), 0.05 + s["last_check_ms"].get<double>() / 3000.0);
  EXPECT_TRUE(checks.stop());
}

TEST_F(ShadowChecksTest, NoFrameIsAskedForWhileACheckIsDueLaterOrOff) {
  ShadowChecks checks(events_, nullptr);
  // 0.1 % of a core: after the first check the next waits 1000 times its CPU time.
  checks.configure(config("  budget_percent: 0.1\n"));
  checks.set_pair(pair(fp32_, int8_));
  checks.start();
  ASSERT_TRUE(test::eventually([&] { return checks.wants_frame(*frame(0)); }, 5s));
  checks.publish(frame(0));
  ASSERT_TRUE(test::eventually([&] { return checks.status()["checks_total"] == 1; }, 10s));
  EXPECT_EQ(offer(checks, 500ms), 0);
  // A frameless result (the camera away) is never asked for.
  FrameResult frameless;
  frameless.frameless = true;
  EXPECT_FALSE(checks.wants_frame(frameless));

  checks.configure(config("  enabled: false\n"));
  ASSERT_TRUE(test::eventually([&] { return checks.status()["enabled"] == false; }, 5s));
  EXPECT_EQ(checks.status()["idle_reason"], "checks.enabled is false");
  EXPECT_FALSE(checks.wants_frame(*frame(1)));
  EXPECT_TRUE(checks.stop());
}

TEST_F(ShadowChecksTest, WithoutAnInt8FileTheStatusSaysWhy) {
  ShadowChecks checks(events_, nullptr);
  checks.configure(config("  enabled: true\n"));
  checks.set_pair(std::nullopt, "no INT8 file of model.path to check against FP32");
  checks.start();
  ASSERT_TRUE(test::eventually(
      [&] {
        return checks.status()["idle_reason"] == "no INT8 file of model.path to check against FP32";
      },
      5s));
  EXPECT_FALSE(checks.wants_frame(*frame(0)));
  EXPECT_TRUE(checks.stop());
}

TEST_F(ShadowChecksTest, AnInt8FileOfAnotherInputIsRefusedWithTheReason) {
  ShadowChecks checks(events_, nullptr);
  checks.configure(config("  budget_percent: 50\n"));
  const fs::path other = folder_.path() / "tiny_64.int8.onnx";
  const test::ProcessResult made = test::run_process(
      {test::cli_path().string(), "quantize", "--model",
       test::tiny_detector_model(folder_.path(), "tiny_64.onnx", 64).string(), "--calib",
       (folder_.path() / "frames").string(), "--keep-fp32", "none", "--out", other.string()});
  ASSERT_EQ(made.status, 0) << made.err;
  checks.set_pair(pair(fp32_, other));
  checks.start();
  ASSERT_TRUE(test::eventually([&] { return checks.wants_frame(*frame(0)); }, 5s));
  checks.publish(frame(0));
  ASSERT_TRUE(test::eventually([&] { return checks.status().contains("warning"); }, 10s));
  const nlohmann::json s = checks.status();
  EXPECT_FALSE(s["ok"].get<bool>());
  EXPECT_NE(s["warning"].get<std::string>().find("does not match"), std::string::npos) << s.dump();
  EXPECT_NE(s["warning"].get<std::string>().find("model.int8_path"), std::string::npos);
  EXPECT_EQ(s["checks_total"], 0);
  EXPECT_EQ(recorder_.count("int8_checks"), 1);
  // No more frames until the model changes.
  EXPECT_FALSE(checks.wants_frame(*frame(1)));
  checks.set_pair(pair(fp32_, int8_));
  ASSERT_TRUE(test::eventually([&] { return checks.wants_frame(*frame(2)); }, 5s));
  EXPECT_TRUE(checks.stop());
}

}  // namespace
}  // namespace yolo::daemon
