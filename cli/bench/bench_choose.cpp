// SPDX-License-Identifier: Apache-2.0
#include "cli/bench/bench_choose.h"

#include <cstdio>
#include <stdexcept>

#include "cli/common/lint_warnings.h"
#include "detector/detector.h"

namespace yolo::cli {

namespace {

std::unique_ptr<detector::Detector> load(const ChooseOptions& options,
                                         const std::filesystem::path& file,
                                         runtime::Precision precision) {
  detector::DetectorOptions d;
  d.model = file;
  d.engine.precision = precision;
  d.engine.imgsz = options.imgsz;
  d.decode = options.decode;
  auto loaded = std::make_unique<detector::Detector>(d);
  print_lint_warnings(file.string(), loaded->engine().lint_findings());
  return loaded;
}

}  // namespace

ChooseResult run_choose(const ChooseOptions& options, const std::vector<cv::Mat>& frames,
                        const ChooseProgress& progress) {
  if (frames.empty()) throw std::invalid_argument("bench --choose: no frames to measure on");
  auto fp32 = load(options, options.fp32, runtime::Precision::kFp32);
  auto int8 = load(options, options.int8, runtime::Precision::kInt8);
  int8->set_decode(detector::prediction_decode(options.decode));

  const detector::TrialPlan plan = detector::trial_plan(options.thread_counts);
  detector::PrecisionTrial trial(plan, options.decode.conf);
  const int total = trial.frames_left();
  std::size_t next = 0;
  while (!trial.done()) {
    trial.run(*fp32, *int8, frames[next]);
    next = (next + 1) % frames.size();
    if (progress) progress(total - trial.frames_left(), total);
  }
  ChooseResult result;
  result.figures = trial.figures();
  result.choice = detector::choose_precision(result.figures, options.min_map50);
  return result;
}

std::string choose_text(const ChooseOptions& options, const ChooseResult& r,
                        std::size_t distinct_frames, const std::string& source) {
  std::string text;
  char line[256];
  // Paths and the source's description can be long: not through a fixed buffer.
  text += "FP32    " + options.fp32.string() + "\nINT8    " + options.int8.string() + "\nframes  " +
          std::to_string(distinct_frames) + " read from " + source + "; the trial ran " +
          std::to_string(r.choice.frames) + " (the first at each thread count untimed)\n\n";
  text += "| threads | FP32 ms (p50) | INT8 ms (p50) | INT8/FP32 speedup |\n";
  text += "|--------:|--------------:|--------------:|------------------:|\n";
  for (const auto& [n, fp32_ms] : r.figures.fp32_ms) {
    const double int8_ms = r.figures.int8_ms.at(n);
    std::snprintf(line, sizeof line, "| %7d | %13.2f | %13.2f | %16.2fx |\n", n, fp32_ms, int8_ms,
                  int8_ms > 0 ? fp32_ms / int8_ms : 0.0);
    text += line;
  }
  if (r.choice.map50) {
    std::snprintf(line, sizeof line,
                  "\nagreement  INT8 against FP32: mAP50 %.4f (needs %.2f) over %ld FP32 box(es)\n",
                  *r.choice.map50, options.min_map50, r.choice.fp32_boxes);
  } else {
    std::snprintf(line, sizeof line,
                  "\nagreement  none measured: FP32 detected nothing on these frames\n");
  }
  text += line;
  text += "choice     " + r.choice.reason + "\n";
  if (!r.choice.decided) {
    text += "           give frames with the objects the camera will see (--images or --video)\n";
  }
  return text;
}

nlohmann::json choose_json(const ChooseOptions& options, const ChooseResult& r,
                           std::size_t distinct_frames, const std::string& source) {
  nlohmann::json j = detector::to_json(r.choice, r.figures);
  j["fp32_model"] = options.fp32.string();
  j["int8_model"] = options.int8.string();
  j["source"] = source;
  j["distinct_frames"] = distinct_frames;
  return j;
}

}  // namespace yolo::cli
