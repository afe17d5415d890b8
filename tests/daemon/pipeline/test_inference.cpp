// SPDX-License-Identifier: Apache-2.0
// Inference: the inference thread on a real model: results with their stage times, thresholds
// applied at the next frame, and a model swapped in between two frames with no frame lost
// and a precision trial run beside the model (daemon/pipeline/inference.cpp).
#include "daemon/pipeline/inference.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

#include <opencv2/imgcodecs.hpp>

#include "tests/daemon/event_recorder.h"
#include "tests/support/fixtures.h"

namespace yolo::daemon {
namespace {

using namespace std::chrono_literals;

// Keeps every result and event it is given.
class Recorder : public test::EventRecorder {
 public:
  std::string_view name() const override { return "recorder"; }
  void publish(std::shared_ptr<const FrameResult> r) override {
    {
      std::lock_guard lock(mutex_);
      results_.push_back(std::move(r));
    }
    changed_.notify_all();
  }
  bool wants_frame(const FrameResult&) const override { return wants_frame_.load(); }

  // Waits for result number n (0-based).
  std::shared_ptr<const FrameResult> result(std::size_t n) {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, 30s, [&] { return results_.size() > n; });
    return results_.size() > n ? results_[n] : nullptr;
  }
  std::atomic<bool> wants_frame_{false};

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::shared_ptr<const FrameResult>> results_;
};

LoadedModel load(const std::string& name) {
  detector::DetectorOptions options;
  options.model = test::fixtures_dir() / "models" / "yolo11n_320_fp32.onnx";
  LoadedModel m;
  m.detector = std::make_unique<detector::Detector>(options);
  auto info = std::make_shared<ModelInfo>();
  info->name = name;
  info->precision = runtime::Precision::kFp32;
  info->input_width = m.detector->engine().input_width();
  info->input_height = m.detector->engine().input_height();
  info->names = m.detector->names();
  m.info = std::move(info);
  m.build_ms = 1;
  return m;
}

class InferenceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!test::have_fixtures()) GTEST_SKIP() << "fixtures not found at " << test::fixtures_dir();
    dog_ = cv::imread((test::fixtures_dir() / "images" / "dog.jpg").string());
  }

  // An inference thread on the fixture model named "first", at one thread, publishing to the
  // recorder.
  std::unique_ptr<Inference> start() {
    events_.add(&recorder_);
    auto inference = std::make_unique<Inference>(events_, hub_, std::vector<Publisher*>{&recorder_},
                                                 [this](auto d) {
                                                   std::lock_guard lock(retired_mutex_);
                                                   retired_.push_back(std::move(d));
                                                 });
    inference->start(load("first"), vision::DecodeOptions{},
                     {config::ThreadMode::kFixed, 1, 1, 0.1});
    return inference;
  }

  // Hands frame `index` (the dog photo) to the inference thread.
  void feed(std::int64_t index) {
    vision::Frame f;
    dog_.copyTo(f.bgr);
    f.index = index;
    f.timestamp = std::chrono::steady_clock::now();
    f.scene_time = f.timestamp;
    hub_.put(camera_, f, true);
  }

  Logger log_{Logger::Sink::kStderr, config::LogLevel::kError};
  Events events_{log_};
  Recorder recorder_;
  EventLog object_events_{10};
  FrameHub hub_;
  int camera_ = hub_.add(std::make_shared<CameraStage>(object_events_, "main"), 0);
  cv::Mat dog_;
  std::vector<std::unique_ptr<detector::Detector>> retired_;
  std::mutex retired_mutex_;
};

TEST_F(InferenceTest, ResultsCarryTimesModelAndDetectionsAndThresholdsApplyAtTheNextFrame) {
  const auto inference = start();
  feed(0);
  const auto r = recorder_.result(0);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->index, 0);
  EXPECT_EQ(r->model->name, "first");
  EXPECT_EQ(r->threads, 1);
  EXPECT_GT(r->times.inference_ms, 0);
  EXPECT_GT(r->times.preprocess_ms, 0);
  EXPECT_GE(r->times.end_to_end_ms, r->times.inference_ms + r->times.preprocess_ms);
  EXPECT_FALSE(r->detections.empty());
  EXPECT_FALSE(r->frame) << "pixels are copied only when a publisher wants them";

  vision::DecodeOptions strict;
  strict.conf = 0.999f;
  inference->set_decode(strict);
  recorder_.wants_frame_ = true;
  feed(1);
  const auto r1 = recorder_.result(1);
  ASSERT_TRUE(r1);
  EXPECT_TRUE(r1->detections.empty());
  ASSERT_TRUE(r1->frame);
  EXPECT_EQ(r1->frame->size(), dog_.size());
  EXPECT_EQ(inference->frames(), 2);
  EXPECT_TRUE(inference->stop(2000ms));
}

TEST_F(InferenceTest, ASwapHappensBetweenTwoFramesAndLosesNone) {
  const auto inference = start();
  feed(0);
  ASSERT_TRUE(recorder_.result(0));
  inference->swap_in(load("second"));
  feed(1);
  feed(2);
  const auto r1 = recorder_.result(1);
  const auto r2 = recorder_.result(2);
  ASSERT_TRUE(r1 && r2);
  EXPECT_EQ(r1->model->name, "second");
  EXPECT_EQ(r2->model->name, "second");
  const auto swaps = recorder_.named("swap");
  ASSERT_EQ(swaps.size(), 1u);
  EXPECT_EQ(swaps[0]["from"], "first");
  EXPECT_EQ(swaps[0]["to"], "second");
  EXPECT_EQ(swaps[0]["last_frame_before"], 0);
  EXPECT_EQ(swaps[0]["first_frame_after"], 1);
  EXPECT_EQ(swaps[0]["frames_lost"], 0);
  EXPECT_EQ(inference->model()->name, "second");
  EXPECT_TRUE(inference->stop(2000ms));
  // The old detector went to the retire callback, not freed on the inference thread.
  std::lock_guard lock(retired_mutex_);
  EXPECT_EQ(retired_.size(), 1u);
}

// Holds what a trial hands back.
struct TrialBox {
  std::mutex mutex;
  std::condition_variable done;
  std::optional<TrialOutcome> outcome;

  Inference::TrialDone callback() {
    return [this](TrialOutcome o) {
      {
        std::lock_guard lock(mutex);
        outcome = std::move(o);
      }
      done.notify_all();
    };
  }
  bool wait(std::chrono::seconds limit) {
    std::unique_lock lock(mutex);
    return done.wait_for(lock, limit, [&] { return outcome.has_value(); });
  }
};

TEST_F(InferenceTest, ATrialRunsTheCandidateBesideTheModelAndHandsBackItsFigures) {
  const auto inference = start();
  TrialBox box;
  inference->start_trial(load("candidate"), box.callback());
  // Fixed at 1 thread: one count, a warm-up frame and 32 timed ones.
  for (std::int64_t i = 0; i < 33; ++i) {
    feed(i);
    const auto r = recorder_.result(static_cast<std::size_t>(i));
    ASSERT_TRUE(r) << i;
    // The stream carries on with the running model's results.
    EXPECT_EQ(r->model->name, "first");
    EXPECT_FALSE(r->detections.empty());
    if (i == 0) {
      EXPECT_EQ(inference->status().trial_frames_left, 32);
    }
  }
  ASSERT_TRUE(box.wait(10s));
  const TrialOutcome& o = *box.outcome;
  ASSERT_TRUE(o.figures);
  EXPECT_TRUE(o.error.empty());
  ASSERT_TRUE(o.candidate.detector) << "the candidate is handed back, not freed here";
  EXPECT_EQ(o.candidate.info->name, "candidate");
  ASSERT_EQ(o.figures->fp32_ms.size(), 1u);
  EXPECT_GT(o.figures->fp32_ms.at(1), 0);
  EXPECT_GT(o.figures->int8_ms.at(1), 0);
  EXPECT_EQ(o.figures->agreement.images, 33);
  // The same model on the same frames agrees fully.
  ASSERT_TRUE(o.figures->agreement.map50);
  EXPECT_DOUBLE_EQ(*o.figures->agreement.map50, 1.0);
  EXPECT_EQ(inference->status().trial_frames_left, 0);
  EXPECT_EQ(inference->model()->name, "first");
  EXPECT_TRUE(inference->stop(2000ms));
}

TEST_F(InferenceTest, ASwapCancelsATrialAndHandsTheCandidateBack) {
  const auto inference = start();
  TrialBox box;
  inference->start_trial(load("candidate"), box.callback());
  feed(0);
  ASSERT_TRUE(recorder_.result(0));
  inference->swap_in(load("second"));
  feed(1);
  const auto r1 = recorder_.result(1);
  ASSERT_TRUE(r1);
  EXPECT_EQ(r1->model->name, "second");
  ASSERT_TRUE(box.wait(10s));
  EXPECT_FALSE(box.outcome->figures);
  EXPECT_TRUE(box.outcome->error.empty());
  EXPECT_TRUE(box.outcome->candidate.detector);
  EXPECT_EQ(inference->status().trial_frames_left, 0);

  // A trial cancelled before it began hands its candidate back at once.
  TrialBox pending;
  inference->start_trial(load("later"), pending.callback());
  inference->cancel_trial();
  ASSERT_TRUE(pending.wait(1s));
  EXPECT_FALSE(pending.outcome->figures);
  EXPECT_EQ(pending.outcome->candidate.info->name, "later");
  EXPECT_TRUE(inference->stop(2000ms));
}

// Result times every `interval`, `count` of them, the last at `last`.
std::deque<std::chrono::steady_clock::time_point> every(
    std::chrono::milliseconds interval, int count, std::chrono::steady_clock::time_point last) {
  std::deque<std::chrono::steady_clock::time_point> times;
  for (int i = count - 1; i >= 0; --i) times.push_back(last - i * interval);
  return times;
}

TEST(ResultsPerSecond, IsRightAtATenthOfAFrameASecondAsAtThirty) {
  const auto t = std::chrono::steady_clock::now();
  // Read at random moments between two results: never 0, never more than the rate.
  for (auto since : {0ms, 10ms, 30ms}) {
    EXPECT_NEAR(results_per_second(every(33ms, 200, t), t + since), 30.3, 0.1) << since.count();
  }
  for (auto since : {0ms, 5000ms, 9900ms}) {
    EXPECT_NEAR(results_per_second(every(10000ms, 5, t), t + since), 0.1, 1e-6) << since.count();
  }
  EXPECT_NEAR(results_per_second(every(1000ms, 10, t), t + 900ms), 1.0, 1e-6);
}

TEST(ResultsPerSecond, FallsWhenResultsStopAndIsZeroWithoutTwo) {
  const auto t = std::chrono::steady_clock::now();
  const auto times = every(100ms, 50, t);
  EXPECT_NEAR(results_per_second(times, t + 150ms), 10, 1e-6) << "one late result is not a stop";
  EXPECT_NEAR(results_per_second(times, t + 1s), 2, 1e-6);
  EXPECT_NEAR(results_per_second(times, t + 20s), 0.1, 1e-6);
  EXPECT_EQ(results_per_second(every(100ms, 1, t), t), 0);
  EXPECT_EQ(results_per_second({}, t), 0);
}

TEST(ResultsLost, CountsMissedResultsNotSkippedCameraFramesOrASlowerModel) {
  // A slow device: a result every 2 s from a 30 fps camera skips 59 frames each time; a swap
  // between two frames loses nothing.
  EXPECT_EQ(results_lost(2000, 2000, 1900), 0);
  // A 0.1 FPS source: the gap is the source's.
  EXPECT_EQ(results_lost(10000, 10000, 50), 0);
  // The new model takes 3x as long for its frame: slower, not lost.
  EXPECT_EQ(results_lost(300, 100, 290), 0);
  // The stream stalled for about three results.
  EXPECT_EQ(results_lost(400, 100, 90), 3);
  // No pace known before (one result or none): nothing claimed.
  EXPECT_EQ(results_lost(400, 0, 50), 0);
}

}  // namespace
}  // namespace yolo::daemon
