// SPDX-License-Identifier: Apache-2.0
#pragma once

// Precision chosen by measurement (model.precision: auto, `yolo-edge bench --choose`): FP32 and
// INT8 run side by side on the same frames at each thread count the daemon's controller would
// try, and INT8 is chosen only where it is faster and its detections agree with FP32's.

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>

#include "detector/detector.h"
#include "vision/metrics.h"

namespace yolo::detector {

// The thread counts the daemon's thread controller explores, in order: 1, 2, 3, 4, then doubling,
// then `max` (every count matters on a 4-core Pi; beyond, doubling keeps exploring short).
std::vector<int> thread_counts_to_try(int max);

// How INT8 decodes during a trial: `decode` with B's detections as `yolo-edge compare` keeps them
// (down to vision::kPredictionConf, every class), so its agreement is compare's measure.
vision::DecodeOptions prediction_decode(vision::DecodeOptions decode);

// The count with the lowest latency, the fewer threads on a tie. `ms` must not be empty.
std::pair<int, double> fastest(const std::map<int, double>& ms);

// What a trial runs: each count in turn, its first `warmup` frames untimed (pools set up again),
// then `frames_per_count` timed frames.
struct TrialPlan {
  std::vector<int> thread_counts;
  int warmup = 1;
  int frames_per_count = 8;
};

// The plan the daemon and `bench --choose` both run: `thread_counts` in turn, a warm-up frame
// each, and 32 / counts timed frames per count (whole frames, so 30 for 3 counts), 8 at the least.
TrialPlan trial_plan(std::vector<int> thread_counts);

// What a trial measured.
struct TrialFigures {
  // Median inference latency at each thread count, per precision.
  std::map<int, double> fp32_ms;
  std::map<int, double> int8_ms;
  // INT8's detections against FP32's on every frame of the trial (FP32's are the truth).
  vision::Agreement agreement;
};

// Runs FP32 and INT8 on the same frames, one frame at a time, so both see the same scenes, the
// same temperature and the same background load; which runs first alternates from frame to
// frame so neither always finds the caches warm. Not thread-safe.
class PrecisionTrial {
 public:
  // Throws std::invalid_argument for an empty plan, a count below 1, or no timed frames.
  // `count_conf` is FP32's score threshold (the truth's), used for INT8's box counts as compare
  // does.
  PrecisionTrial(TrialPlan plan, float count_conf);

  bool done() const;
  // The count the next frame runs at.
  int threads() const;
  // Frames still to run.
  int frames_left() const;
  // Runs both detectors on `bgr` at threads() and records their latencies and agreement;
  // returns FP32's detections (with its timings in `fp32_timings` when given). `int8` decodes as
  // prediction_decode() says.
  vision::Detections run(Detector& fp32, Detector& int8, const cv::Mat& bgr,
                         DetectTimings* fp32_timings = nullptr);
  // The medians so far (every count once done()).
  TrialFigures figures() const;

 private:
  TrialPlan plan_;
  std::size_t count_index_ = 0;
  // Frames run at the current count, warm-up included.
  int at_count_ = 0;
  long frames_run_ = 0;
  std::map<int, std::vector<double>> fp32_samples_;
  std::map<int, std::vector<double>> int8_samples_;
  vision::AgreementAccumulator agreement_;
};

// The decision and why.
struct PrecisionChoice {
  // kFp32 or kInt8.
  runtime::Precision precision = runtime::Precision::kFp32;
  // False when the trial could not tell (FP32 found nothing to check INT8 against): FP32 runs
  // and the trial should be tried again on other frames.
  bool decided = true;
  // One sentence for people: what was chosen, the figures that decided it.
  std::string reason;
  // Each precision at its fastest count.
  int fp32_threads = 0;
  int int8_threads = 0;
  double fp32_ms = 0;
  double int8_ms = 0;
  // fp32_ms / int8_ms.
  double speedup = 0;
  // judged_map50() of the trial's agreement.
  std::optional<double> map50;
  double min_map50 = 0;
  long frames = 0;
  // FP32's boxes over the trial: what agreement was measured on.
  long fp32_boxes = 0;
};

// INT8 must be this much faster than FP32, so timing noise does not pick it.
inline constexpr double kMinInt8Speedup = 1.05;

// The agreement a decision reads: the mAP50 over the classes with at least a.min_boxes FP32 boxes
// (a class seen once or twice moves a class mean by 0.05-0.3 with one borderline call, and would
// refuse INT8 on most cameras), or, when no class has that many, the AP50 weighted by boxes;
// empty when FP32 found nothing. `what`, when given, gets which one it is, for messages.
std::optional<double> judged_map50(const vision::Agreement& a, std::string* what = nullptr);

// INT8 when its fastest count is at least kMinInt8Speedup times faster than FP32's fastest and
// its judged_map50() against FP32 is at least `min_map50`; FP32 otherwise. Throws
// std::invalid_argument when either precision has no latency.
PrecisionChoice choose_precision(const TrialFigures& figures, double min_map50);

// The choice as the field log, the status and `bench --choose --json` show it.
nlohmann::json to_json(const PrecisionChoice& choice, const TrialFigures& figures);

}  // namespace yolo::detector
