// SPDX-License-Identifier: Apache-2.0
#include "detector/precision_trial.h"

#include <gtest/gtest.h>

#include <opencv2/imgcodecs.hpp>

#include "tests/support/fixtures.h"
#include "tests/support/run_process.h"
#include "tests/support/temp_folder.h"

namespace yolo::detector {
namespace {

// Figures as a trial would measure them: latency per count, and an agreement of `map50` over
// `frames` frames in which FP32 found `boxes` boxes (none: no mAP50).
TrialFigures figures(std::map<int, double> fp32, std::map<int, double> int8,
                     std::optional<double> map50, long frames = 32, long boxes = 40) {
  TrialFigures f;
  f.fp32_ms = std::move(fp32);
  f.int8_ms = std::move(int8);
  f.agreement.images = frames;
  f.agreement.map50 = map50;
  f.agreement.map50_judged = boxes >= vision::kMinJudgedBoxes ? map50 : std::nullopt;
  f.agreement.judged_classes = boxes >= vision::kMinJudgedBoxes ? 1 : 0;
  f.agreement.box_ap50 = map50;
  if (boxes > 0) {
    vision::ClassAgreement k;
    k.a_count = boxes;
    f.agreement.classes.push_back(k);
  }
  return f;
}

TEST(ThreadCountsToTry, EveryCountToFourThenDoublingThenMax) {
  EXPECT_EQ(thread_counts_to_try(1), (std::vector<int>{1}));
  EXPECT_EQ(thread_counts_to_try(2), (std::vector<int>{1, 2}));
  EXPECT_EQ(thread_counts_to_try(4), (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(thread_counts_to_try(12), (std::vector<int>{1, 2, 3, 4, 8, 12}));
  EXPECT_EQ(thread_counts_to_try(16), (std::vector<int>{1, 2, 3, 4, 8, 16}));
  EXPECT_THROW(thread_counts_to_try(0), std::invalid_argument);
}

TEST(ChoosePrecision, Int8WhenFasterAndAgreeing) {
  const auto c = choose_precision(figures({{1, 20}, {2, 12}}, {{1, 10}, {2, 7}}, 0.97), 0.95);
  EXPECT_EQ(c.precision, runtime::Precision::kInt8);
  EXPECT_TRUE(c.decided);
  EXPECT_EQ(c.fp32_threads, 2);
  EXPECT_EQ(c.int8_threads, 2);
  EXPECT_DOUBLE_EQ(c.speedup, 12.0 / 7.0);
  EXPECT_EQ(c.fp32_boxes, 40);
  EXPECT_EQ(c.reason,
            "INT8: INT8 7.0 ms at 2 threads vs FP32 12.0 ms at 2 threads (1.71x), and it agrees "
            "with FP32: mAP50 over the classes with >= 10 boxes 0.970 >= 0.950 on 32 frame(s)");
}

TEST(ChoosePrecision, EachPrecisionAtItsOwnFastestCount) {
  // FP32 is fastest at 2 threads, INT8 at 1 (its 2-thread run contends): compared best to best.
  const auto c = choose_precision(figures({{1, 20}, {2, 11}}, {{1, 8}, {2, 9}}, 1.0), 0.95);
  EXPECT_EQ(c.precision, runtime::Precision::kInt8);
  EXPECT_EQ(c.fp32_threads, 2);
  EXPECT_EQ(c.int8_threads, 1);
  EXPECT_DOUBLE_EQ(c.fp32_ms, 11);
  EXPECT_DOUBLE_EQ(c.int8_ms, 8);
}

TEST(ChoosePrecision, Fp32WhenInt8IsSlowerOrBarelyFaster) {
  // Dynamic INT8 on a CPU: slower than FP32.
  auto c = choose_precision(figures({{1, 10}}, {{1, 31}}, 1.0), 0.95);
  EXPECT_EQ(c.precision, runtime::Precision::kFp32);
  EXPECT_TRUE(c.decided);
  EXPECT_NE(c.reason.find("not at least 1.05x faster"), std::string::npos) << c.reason;
  // 3 % faster is within timing noise.
  c = choose_precision(figures({{1, 10.3}}, {{1, 10}}, 1.0), 0.95);
  EXPECT_EQ(c.precision, runtime::Precision::kFp32);
  // 5 % is enough.
  c = choose_precision(figures({{1, 10.5}}, {{1, 10}}, 1.0), 0.95);
  EXPECT_EQ(c.precision, runtime::Precision::kInt8);
}

TEST(ChoosePrecision, Fp32WhenInt8Disagrees) {
  const auto c = choose_precision(figures({{1, 20}}, {{1, 10}}, 0.9), 0.95);
  EXPECT_EQ(c.precision, runtime::Precision::kFp32);
  EXPECT_TRUE(c.decided);
  EXPECT_NE(c.reason.find("disagrees with FP32: mAP50 over the classes with >= 10 boxes 0.900 < "
                          "0.950"),
            std::string::npos)
      << c.reason;
  // The threshold is the config's.
  EXPECT_EQ(choose_precision(figures({{1, 20}}, {{1, 10}}, 0.9), 0.85).precision,
            runtime::Precision::kInt8);
}

TEST(ChoosePrecision, ClassesWithFewBoxesDoNotDecide) {
  // The class mean is dragged down by a class FP32 saw twice; the judged classes agree.
  auto f = figures({{1, 20}}, {{1, 10}}, 0.98);
  f.agreement.map50 = 0.70;
  auto c = choose_precision(f, 0.95);
  EXPECT_EQ(c.precision, runtime::Precision::kInt8) << c.reason;
  EXPECT_DOUBLE_EQ(*c.map50, 0.98);
  // No class with 10 boxes: the box-weighted AP50 decides, and the reason says so.
  f = figures({{1, 20}}, {{1, 10}}, 0.9, 32, 6);
  c = choose_precision(f, 0.95);
  EXPECT_EQ(c.precision, runtime::Precision::kFp32);
  EXPECT_NE(c.reason.find("box-weighted AP50 (no class with 10 boxes) 0.900"), std::string::npos)
      << c.reason;
}

TEST(ChoosePrecision, UndecidedWhenFp32FoundNothingToCompare) {
  const auto c = choose_precision(figures({{1, 20}}, {{1, 10}}, std::nullopt, 32, 0), 0.95);
  EXPECT_EQ(c.precision, runtime::Precision::kFp32);
  EXPECT_FALSE(c.decided);
  EXPECT_NE(c.reason.find("FP32 found nothing on 32 frame(s)"), std::string::npos) << c.reason;
}

TEST(ChoosePrecision, NeedsBothLatencies) {
  EXPECT_THROW(choose_precision(figures({}, {{1, 10}}, 1.0), 0.95), std::invalid_argument);
  EXPECT_THROW(choose_precision(figures({{1, 10}}, {}, 1.0), 0.95), std::invalid_argument);
}

TEST(ChoosePrecision, JsonHoldsTheFiguresBehindTheDecision) {
  const auto f = figures({{1, 20.004}, {2, 12}}, {{1, 10}, {2, 7.126}}, 0.96789);
  const auto j = to_json(choose_precision(f, 0.95), f);
  EXPECT_EQ(j["precision"], "int8");
  EXPECT_EQ(j["decided"], true);
  EXPECT_DOUBLE_EQ(j["fp32_ms_by_threads"]["1"].get<double>(), 20.0);
  EXPECT_DOUBLE_EQ(j["int8_ms_by_threads"]["2"].get<double>(), 7.13);
  EXPECT_DOUBLE_EQ(j["map50"].get<double>(), 0.9679);
  EXPECT_DOUBLE_EQ(j["min_map50"].get<double>(), 0.95);
  EXPECT_EQ(j["frames"], 32);
  EXPECT_TRUE(j["reason"].get<std::string>().starts_with("INT8: "));
  const auto none = figures({{1, 20}}, {{1, 10}}, std::nullopt, 5, 0);
  EXPECT_TRUE(to_json(choose_precision(none, 0.95), none)["map50"].is_null());
}

TEST(PrecisionTrial, Int8DecodesAsCompareKeepsItsPredictions) {
  vision::DecodeOptions d;
  d.conf = 0.4f;
  d.iou = 0.6f;
  d.classes = {0, 2};
  const vision::DecodeOptions p = prediction_decode(d);
  EXPECT_EQ(p.conf, vision::kPredictionConf);
  EXPECT_TRUE(p.multi_label);
  EXPECT_EQ(p.iou, 0.6f);
  EXPECT_EQ(p.classes, d.classes);
}

TEST(PrecisionTrial, RefusesAnEmptyPlan) {
  EXPECT_THROW(PrecisionTrial(TrialPlan{{}, 1, 8}, 0.25f), std::invalid_argument);
  EXPECT_THROW(PrecisionTrial(TrialPlan{{1, 0}, 1, 8}, 0.25f), std::invalid_argument);
  EXPECT_THROW(PrecisionTrial(TrialPlan{{1}, 1, 0}, 0.25f), std::invalid_argument);
}

// Real detectors on real photos: yolo11n FP32 against a static INT8 file made from it here, fast
// (one photo, nothing measured; the plain ranges and weights of the former defaults, since with
// the scores sharing the boxes' scale every file is poor and only its plumbing is tested here).
TEST(PrecisionTrial, TimesBothModelsAtEachCountOnTheSameFrames) {
  YOLO_REQUIRE_FIXTURES();
  const test::TempFolder folder;
  const auto images = test::fixtures_dir() / "images";
  std::filesystem::create_directories(folder.path() / "calib");
  std::filesystem::create_symlink(images / "horses.jpg", folder.path() / "calib" / "horses.jpg");
  DetectorOptions fp32_options;
  fp32_options.model = test::fixtures_dir() / "models" / "yolo11n_320_fp32.onnx";
  DetectorOptions int8_options = fp32_options;
  int8_options.model = folder.path() / "yolo11n_320.int8.onnx";
  int8_options.engine.precision = runtime::Precision::kInt8;
  const auto made = test::run_process(
      {test::cli_path().string(), "quantize", "--model", fp32_options.model.string(), "--calib",
       (folder.path() / "calib").string(), "--keep-fp32", "none", "--method", "minmax",
       "--bias-correction", "off", "--out", int8_options.model.string()});
  ASSERT_EQ(made.status, 0) << made.err;
  Detector fp32(fp32_options);
  Detector int8(int8_options);
  int8.set_decode(prediction_decode(int8_options.decode));
  const std::vector<cv::Mat> photos = {cv::imread((images / "dog.jpg").string()),
                                       cv::imread((images / "horses.jpg").string())};

  PrecisionTrial trial(TrialPlan{{1, 2}, 1, 2}, 0.25f);
  EXPECT_EQ(trial.frames_left(), 6);
  std::vector<int> counts;
  int frame = 0;
  while (!trial.done()) {
    counts.push_back(trial.threads());
    const cv::Mat& photo = photos[static_cast<std::size_t>(frame++) % photos.size()];
    DetectTimings timings;
    const vision::Detections from_fp32 = trial.run(fp32, int8, photo, &timings);
    // The published result is FP32's, as if FP32 had run alone.
    EXPECT_EQ(from_fp32.size(), fp32.detect(photo).size());
    EXPECT_GT(timings.inference_ms, 0);
  }
  EXPECT_EQ(counts, (std::vector<int>{1, 1, 1, 2, 2, 2}));
  EXPECT_EQ(trial.frames_left(), 0);
  EXPECT_THROW(trial.run(fp32, int8, photos[0]), std::logic_error);

  const TrialFigures f = trial.figures();
  ASSERT_EQ(f.fp32_ms.size(), 2u);
  ASSERT_EQ(f.int8_ms.size(), 2u);
  for (const auto& [n, ms] : f.fp32_ms) EXPECT_GT(ms, 0) << n;
  for (const auto& [n, ms] : f.int8_ms) EXPECT_GT(ms, 0) << n;
  // Agreement covers every frame, warm-up ones too: both photos hold objects FP32 finds.
  EXPECT_EQ(f.agreement.images, 6);
  ASSERT_TRUE(f.agreement.map50);
  EXPECT_GT(*f.agreement.map50, 0.5);
  EXPECT_LE(*f.agreement.map50, 1.0);
}

TEST(PrecisionTrial, AModelAgainstItselfAgreesFully) {
  YOLO_REQUIRE_FIXTURES();
  DetectorOptions options;
  options.model = test::fixtures_dir() / "models" / "yolo11n_320_fp32.onnx";
  Detector a(options);
  Detector b(options);
  b.set_decode(prediction_decode(options.decode));
  const cv::Mat photo = cv::imread((test::fixtures_dir() / "images" / "person.jpg").string());
  PrecisionTrial trial(TrialPlan{{1}, 0, 3}, 0.25f);
  while (!trial.done()) trial.run(a, b, photo);
  const TrialFigures f = trial.figures();
  ASSERT_TRUE(f.agreement.map50);
  EXPECT_DOUBLE_EQ(*f.agreement.map50, 1.0);
  // Which of the two is faster is a timing on a shared machine, not a test (ChoosePrecision
  // decides on given times).
  EXPECT_EQ(f.fp32_ms.count(1), 1U);
  EXPECT_EQ(f.int8_ms.count(1), 1U);
}

}  // namespace
}  // namespace yolo::detector
