// SPDX-License-Identifier: Apache-2.0
#include "daemon/model/requantizer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <opencv2/imgcodecs.hpp>

#include "detector/detector.h"
#include "detector/precision_trial.h"
#include "text/format.h"

namespace yolo::daemon {

namespace fs = std::filesystem;

namespace {

// The fewest frames a check judges a new file on.
constexpr int kMinHeld = 2;

// `name` without its ".onnx" and a ".int8" before it.
std::string model_stem(const fs::path& file) {
  std::string stem = file.stem().string();
  if (stem.ends_with(".int8")) stem.resize(stem.size() - 5);
  return stem;
}

// A link to `from` in `folder` (the reservoir may replace `from` meanwhile: the link keeps the
// frame it had); a copy where links cannot be made.
void link_into(const fs::path& from, const fs::path& folder) {
  const fs::path to = folder / from.filename();
  std::error_code ec;
  fs::create_hard_link(from, to, ec);
  if (ec) fs::copy_file(from, to, fs::copy_options::overwrite_existing);
}

}  // namespace

FrameSplit split_frames(const fs::path& reservoir_dir) {
  std::vector<fs::path> frames;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(reservoir_dir, ec)) {
    if (entry.path().extension() == ".jpg") frames.push_back(entry.path());
  }
  std::sort(frames.begin(), frames.end());
  FrameSplit split;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    (i % kHeldEvery == kHeldEvery - 1 ? split.held : split.calibration).push_back(frames[i]);
  }
  return split;
}

RequantizeFiles requantize_files(const config::ModelConfig& model, const ModelTarget& int8,
                                 const fs::path& int8_dir) {
  RequantizeFiles f;
  f.final_file = model.int8_path.empty()
                     ? int8.file
                     : int8_dir / (model_stem(model.int8_path) + ".requantized.int8.onnx");
  f.candidate = int8_dir / (model_stem(f.final_file) + ".candidate.int8.onnx");
  f.work = int8_dir / "requantize";
  return f;
}

vision::Agreement judge_on_frames(const ModelTarget& fp32, const ModelTarget& int8,
                                  const std::vector<fs::path>& frames) {
  detector::DetectorOptions a = detector_options(fp32);
  detector::DetectorOptions b = detector_options(int8);
  b.decode = detector::prediction_decode(a.decode);
  detector::Detector truth(a);
  detector::Detector candidate(b);
  vision::AgreementAccumulator agreement(a.decode.conf);
  for (const fs::path& frame : frames) {
    const cv::Mat bgr = cv::imread(frame.string(), cv::IMREAD_COLOR);
    if (bgr.empty()) throw std::runtime_error("cannot read the held frame " + frame.string());
    agreement.add(truth.detect(bgr), candidate.detect(bgr));
  }
  return agreement.result();
}

Requantizer::Requantizer(Events& events, CalibrationReservoir& reservoir, fs::path cli)
    : events_(events), reservoir_(reservoir), cli_(std::move(cli)) {}

Requantizer::~Requantizer() {
  cancel();
}

bool Requantizer::active() const {
  return job_ != nullptr;
}

void Requantizer::set_progress(std::string progress) {
  std::lock_guard lock(mutex_);
  progress_ = std::move(progress);
}

std::string Requantizer::pending_summary() const {
  std::lock_guard lock(mutex_);
  return progress_.empty() ? "" : "int8 held: " + progress_;
}

void Requantizer::cancel() {
  if (job_) job_->cancel();
  job_.reset();
  set_progress("");
}

std::optional<Requantizer::Outcome> Requantizer::begin(const config::ModelConfig& model,
                                                       const ModelPair& pair,
                                                       const RequantizeFiles& files,
                                                       const std::string& why) {
  cancel();
  pair_ = pair;
  files_ = files;
  min_map50_ = model.auto_min_map50;
  const int need = model.calibration_frames;
  if (reservoir_.count() < need) {
    return ended(Outcome{"the calibration reservoir holds " + std::to_string(reservoir_.count()) +
                             " of the " + std::to_string(need) +
                             " frames model.calibration_frames asks for (it keeps at most one a "
                             "second; " +
                             reservoir_.dir().string() + ")",
                         ""});
  }
  const FrameSplit split = split_frames(reservoir_.dir());
  if (static_cast<int>(split.held.size()) < kMinHeld) {
    return ended(
        Outcome{"too few frames in " + reservoir_.dir().string() + " to hold any back", ""});
  }
  split_ = {};
  try {
    // Linked, not read in place: the reservoir replaces its files while the child reads them.
    fs::remove_all(files.work);
    const fs::path calibration = files.work / "calibration";
    const fs::path held = files.work / "held";
    fs::create_directories(calibration);
    fs::create_directories(held);
    for (const fs::path& f : split.calibration) link_into(f, calibration);
    for (const fs::path& f : split.held) {
      link_into(f, held);
      split_.held.push_back(held / f.filename());
    }
    QuantizeJob::Request request;
    request.cli = cli_;
    request.model = pair.fp32.file;
    request.calibration = calibration;
    request.out = files.candidate;
    request.report = fs::path(files.candidate).replace_extension(".json");
    request.frames = static_cast<int>(split.calibration.size());
    request.imgsz = pair.fp32.imgsz;
    job_ = std::make_unique<QuantizeJob>(request);
  } catch (const std::exception& e) {
    job_.reset();
    return ended(Outcome{std::string("cannot start: ") + e.what(), ""});
  }
  events_.emit(config::LogLevel::kWarning, fieldlog::EventKind::kQuantizeStarted,
               "quantizing " + pair.fp32.file.filename().string() + " to INT8 again on " +
                   std::to_string(split.calibration.size()) +
                   " calibration frames from this camera (" + std::to_string(split.held.size()) +
                   " held back to check it on), FP32 runs meanwhile: " + why,
               {{"file", files.final_file.string()},
                {"frames", split.calibration.size()},
                {"held", split.held.size()},
                {"trigger", "drift"}});
  set_progress("requantizing after drift (starting)");
  return std::nullopt;
}

std::optional<Requantizer::Outcome> Requantizer::step() {
  if (!job_) return std::nullopt;
  if (!job_->finished()) {
    set_progress("requantizing after drift (" + job_->progress() + ")");
    return std::nullopt;
  }
  const bool made = job_->succeeded();
  const std::string failure = made ? "" : job_->failure();
  job_.reset();
  if (!made) return ended(Outcome{"quantizing failed: " + failure, ""});
  set_progress("requantizing after drift (checking the new file on the held frames)");
  return ended(check());
}

Requantizer::Outcome Requantizer::ended(Outcome outcome) {
  std::error_code ec;
  if (!outcome.failure) {
    fs::rename(files_.candidate, files_.final_file, ec);
    if (ec) outcome.failure = "cannot put the new file in place: " + ec.message();
  }
  if (outcome.failure) {
    fs::remove(files_.candidate, ec);
    set_progress("requantize failed (" + *outcome.failure +
                 "); FP32 runs until the checks try again");
  } else {
    set_progress("");
  }
  return outcome;
}

Requantizer::Outcome Requantizer::check() {
  ModelTarget candidate = pair_.int8;
  candidate.file = files_.candidate;
  vision::Agreement a;
  try {
    a = judge_on_frames(pair_.fp32, candidate, split_.held);
  } catch (const std::exception& e) {
    return {std::string("the new file cannot be checked: ") + e.what(), ""};
  }
  std::string measure;
  const std::optional<double> map50 = detector::judged_map50(a, &measure);
  long fp32_boxes = 0;
  for (const vision::ClassAgreement& k : a.classes) fp32_boxes += k.a_count;
  const std::string on = " on " + std::to_string(split_.held.size()) +
                         " held frames (FP32: " + std::to_string(fp32_boxes) + " boxes)";
  if (!map50) {
    // Nothing to judge it by here: the live checks judge it from now on.
    return {std::nullopt, "FP32 found nothing" + on + "; the live checks judge it"};
  }
  const std::string figures = measure + " " + text::fixed(*map50, 3) + on;
  if (*map50 < min_map50_) {
    return {"the new file agrees with FP32 no better than the floor: " + figures + " < " +
                text::fixed(min_map50_, 2) + " (model.auto_min_map50)",
            figures};
  }
  return {std::nullopt, figures};
}

}  // namespace yolo::daemon
