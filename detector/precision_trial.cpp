// SPDX-License-Identifier: Apache-2.0
#include "detector/precision_trial.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "fieldlog/keys.h"
#include "text/format.h"
#include "vision/latency_stats.h"

namespace yolo::detector {

namespace {

// Counts tried one by one before doubling: every count matters on a 4-core Pi.
constexpr int kEveryCountUpTo = 4;

// A latency as the reasons give it: "12.3 ms".
std::string ms_text(double ms) {
  return text::fixed(ms, 1) + " ms";
}

std::string threads_text(int n) {
  return std::to_string(n) + (n == 1 ? " thread" : " threads");
}

std::string figures_text(const PrecisionChoice& c) {
  return "INT8 " + ms_text(c.int8_ms) + " at " + threads_text(c.int8_threads) + " vs FP32 " +
         ms_text(c.fp32_ms) + " at " + threads_text(c.fp32_threads) + " (" +
         text::fixed(c.speedup, 2) + "x)";
}

}  // namespace

std::pair<int, double> fastest(const std::map<int, double>& ms) {
  return *std::min_element(ms.begin(), ms.end(),
                           [](const auto& a, const auto& b) { return a.second < b.second; });
}

TrialPlan trial_plan(std::vector<int> thread_counts) {
  TrialPlan plan;
  plan.frames_per_count = std::max(8, 32 / std::max(1, static_cast<int>(thread_counts.size())));
  plan.thread_counts = std::move(thread_counts);
  return plan;
}

std::vector<int> thread_counts_to_try(int max) {
  if (max < 1) throw std::invalid_argument("thread count maximum must be at least 1");
  std::vector<int> counts;
  for (int n = 1; n <= std::min(max, kEveryCountUpTo); ++n) counts.push_back(n);
  for (int n = kEveryCountUpTo * 2; n < max; n *= 2) counts.push_back(n);
  if (counts.back() != max) counts.push_back(max);
  return counts;
}

vision::DecodeOptions prediction_decode(vision::DecodeOptions decode) {
  decode.conf = vision::kPredictionConf;
  decode.multi_label = true;
  return decode;
}

PrecisionTrial::PrecisionTrial(TrialPlan plan, float count_conf)
    : plan_(std::move(plan)), agreement_(count_conf) {
  if (plan_.thread_counts.empty()) {
    throw std::invalid_argument("precision trial: no thread counts to try");
  }
  for (int n : plan_.thread_counts) {
    if (n < 1) {
      throw std::invalid_argument("precision trial: thread count " + std::to_string(n) +
                                  " is below 1");
    }
  }
  if (plan_.frames_per_count < 1 || plan_.warmup < 0) {
    throw std::invalid_argument("precision trial: needs at least one timed frame per count");
  }
}

bool PrecisionTrial::done() const {
  return count_index_ == plan_.thread_counts.size();
}

int PrecisionTrial::threads() const {
  return plan_.thread_counts[std::min(count_index_, plan_.thread_counts.size() - 1)];
}

int PrecisionTrial::frames_left() const {
  const int per_count = plan_.warmup + plan_.frames_per_count;
  const int counts_left = static_cast<int>(plan_.thread_counts.size() - count_index_);
  return counts_left * per_count - at_count_;
}

vision::Detections PrecisionTrial::run(Detector& fp32, Detector& int8, const cv::Mat& bgr,
                                       DetectTimings* fp32_timings) {
  if (done()) throw std::logic_error("precision trial: run() after the last frame");
  const int n = threads();
  fp32.engine().set_threads(n);
  int8.engine().set_threads(n);
  DetectTimings a;
  DetectTimings b;
  vision::Detections fp32_dets;
  vision::Detections int8_dets;
  if (frames_run_ % 2 == 0) {
    fp32_dets = fp32.detect(bgr, &a);
    int8_dets = int8.detect(bgr, &b);
  } else {
    int8_dets = int8.detect(bgr, &b);
    fp32_dets = fp32.detect(bgr, &a);
  }
  ++frames_run_;
  agreement_.add(fp32_dets, int8_dets);
  if (at_count_ >= plan_.warmup) {
    fp32_samples_[n].push_back(a.inference_ms);
    int8_samples_[n].push_back(b.inference_ms);
  }
  if (++at_count_ == plan_.warmup + plan_.frames_per_count) {
    at_count_ = 0;
    ++count_index_;
  }
  if (fp32_timings) *fp32_timings = a;
  return fp32_dets;
}

TrialFigures PrecisionTrial::figures() const {
  TrialFigures f;
  for (const auto& [n, samples] : fp32_samples_) f.fp32_ms[n] = vision::summarize(samples).p50;
  for (const auto& [n, samples] : int8_samples_) f.int8_ms[n] = vision::summarize(samples).p50;
  f.agreement = agreement_.result();
  return f;
}

std::optional<double> judged_map50(const vision::Agreement& a, std::string* what) {
  if (a.map50_judged) {
    if (what) *what = "mAP50 over the classes with >= " + std::to_string(a.min_boxes) + " boxes";
    return a.map50_judged;
  }
  if (what) *what = "box-weighted AP50 (no class with " + std::to_string(a.min_boxes) + " boxes)";
  return a.box_ap50;
}

PrecisionChoice choose_precision(const TrialFigures& figures, double min_map50) {
  if (figures.fp32_ms.empty() || figures.int8_ms.empty()) {
    throw std::invalid_argument("choosing a precision needs latencies of both FP32 and INT8");
  }
  PrecisionChoice c;
  std::tie(c.fp32_threads, c.fp32_ms) = fastest(figures.fp32_ms);
  std::tie(c.int8_threads, c.int8_ms) = fastest(figures.int8_ms);
  c.speedup = c.int8_ms > 0 ? c.fp32_ms / c.int8_ms : 0;
  std::string measure;
  c.map50 = judged_map50(figures.agreement, &measure);
  c.min_map50 = min_map50;
  c.frames = figures.agreement.images;
  for (const auto& k : figures.agreement.classes) c.fp32_boxes += k.a_count;
  const std::string frames = " on " + std::to_string(c.frames) + " frame(s)";
  if (c.speedup < kMinInt8Speedup) {
    c.reason = "FP32: INT8 is not at least " + text::fixed(kMinInt8Speedup, 2) +
               "x faster here: " + figures_text(c);
    return c;
  }
  if (!c.map50) {
    c.decided = false;
    c.reason = "FP32 for now: INT8 is faster (" + figures_text(c) + ") but FP32 found nothing" +
               frames + " to check INT8's detections against";
    return c;
  }
  if (*c.map50 < min_map50) {
    c.reason = "FP32: INT8 is faster (" + figures_text(c) +
               ") but disagrees with FP32: " + measure + " " + text::fixed(*c.map50, 3) + " < " +
               text::fixed(min_map50, 3) + frames;
    return c;
  }
  c.precision = runtime::Precision::kInt8;
  c.reason = "INT8: " + figures_text(c) + ", and it agrees with FP32: " + measure + " " +
             text::fixed(*c.map50, 3) + " >= " + text::fixed(min_map50, 3) + frames;
  return c;
}

nlohmann::json to_json(const PrecisionChoice& c, const TrialFigures& figures) {
  auto by_count = [](const std::map<int, double>& ms) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [n, v] : ms) j[std::to_string(n)] = text::rounded(v, 2);
    return j;
  };
  // The fields of the precision_chosen event, which `yolo-edge report` reads.
  namespace key = fieldlog::key;
  nlohmann::json j = {{key::kPrecision, runtime::precision_name(c.precision)},
                      {"decided", c.decided},
                      {key::kReason, c.reason},
                      {key::kFp32Threads, c.fp32_threads},
                      {key::kInt8Threads, c.int8_threads},
                      {key::kFp32Ms, text::rounded(c.fp32_ms, 2)},
                      {key::kInt8Ms, text::rounded(c.int8_ms, 2)},
                      {key::kSpeedup, text::rounded(c.speedup, 3)},
                      {"min_map50", c.min_map50},
                      {"frames", c.frames},
                      {"fp32_boxes", c.fp32_boxes},
                      {"fp32_ms_by_threads", by_count(figures.fp32_ms)},
                      {"int8_ms_by_threads", by_count(figures.int8_ms)}};
  j[key::kMap50] = c.map50 ? nlohmann::json(text::rounded(*c.map50, 4)) : nlohmann::json(nullptr);
  return j;
}

}  // namespace yolo::detector
