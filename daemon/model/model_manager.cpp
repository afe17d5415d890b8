// SPDX-License-Identifier: Apache-2.0
#include "daemon/model/model_manager.h"

#include "runtime/model/model_lint.h"
#include "text/format.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <utility>

#include <opencv2/core.hpp>

namespace yolo::daemon {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

// How often the manager looks at the reservoir and a running quantization.
constexpr auto kTick = std::chrono::milliseconds(500);

}  // namespace

ModelManager::ModelManager(Events& events, Options options, CalibrationReservoir& reservoir)
    : events_(events),
      options_(std::move(options)),
      int8_(events, reservoir, options_.cli),
      auto_(events),
      requantizer_(events, reservoir, options_.cli) {}

ModelManager::~ModelManager() {
  stop(std::chrono::milliseconds(5000));
}

Plan ModelManager::plan(const config::ModelConfig& model) {
  const cv::Size frame = inference_ ? inference_->frame_size() : cv::Size();
  Plan p = plan_model(model, {options_.int8_dir, frame, auto_.int8_chosen()}, files_);
  apply_requantize(p);
  return p;
}

void ModelManager::apply_requantize(Plan& p) const {
  if (replaced_ && p.int8 && p.int8->file == replaced_->first) {
    const ModelTarget old = *p.int8;
    p.int8->file = replaced_->second;
    if (p.run == old) p.run = *p.int8;
    if (p.candidate == old) p.candidate = *p.int8;
  }
  if (hold_fp32_ && p.int8 && p.run == *p.int8) p.run = p.fp32;
}

LoadedModel ModelManager::build(const ModelTarget& target, const config::ModelConfig& model) {
  const auto start = Clock::now();
  detector::DetectorOptions options = detector_options(target);
  options.engine.pools = options_.pools;
  options.engine.log = [this](const std::string& line) { events_.log().debug(line); };
  auto detector = std::make_unique<detector::Detector>(options);
  const int width = detector->engine().input_width();
  const int height = detector->engine().input_height();
  // One run before the swap: the first touches every weight page, and would be a slow frame.
  detector->detect(cv::Mat(height, width, CV_8UC3, cv::Scalar::all(114)));
  auto info = std::make_shared<ModelInfo>();
  info->path = target.file;
  // Named after the FP32 model, so both precisions of one model compare under one name.
  info->name = model.path.stem().string();
  info->precision = options.engine.precision;
  info->input_width = width;
  info->input_height = height;
  info->names = detector->names();
  for (const runtime::LintFinding& f : detector->engine().lint_findings()) {
    info->warnings.push_back(runtime::to_string(f));
    events_.log().warning(target.file.string() + ": " + info->warnings.back());
  }
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  return {std::move(detector), std::move(info), ms};
}

LoadedModel ModelManager::load_initial(const config::ModelConfig& model) {
  wanted_ = model;
  const Plan p = plan(model);
  LoadedModel loaded = build(p.run, model);
  events_.emit(config::LogLevel::kInfo, fieldlog::EventKind::kModelLoaded,
               "loaded " + describe(p.run) + ", input " + std::to_string(loaded.info->input_width) +
                   "x" + std::to_string(loaded.info->input_height) + ", in " +
                   std::to_string(std::lround(loaded.build_ms)) + " ms",
               {{"file", p.run.file.string()},
                {"precision", runtime::precision_name(loaded.info->precision)},
                {"build_ms", text::rounded(loaded.build_ms, 1)}});
  running_ = p.run;
  if (wants_int8(model.precision)) {
    int8_.set(p.make.empty() ? Int8Maker::State::kRunning : Int8Maker::State::kCollecting);
  }
  return loaded;
}

void ModelManager::start(Inference& inference) {
  inference_ = &inference;
  worker_.start("model", [this] { run(); });
}

void ModelManager::reconfigure(const config::ModelConfig& model) {
  {
    std::lock_guard lock(mutex_);
    wanted_ = model;
    ++generation_;
  }
  wake_.notify_all();
}

void ModelManager::retire(std::unique_ptr<detector::Detector> detector) {
  {
    std::lock_guard lock(mutex_);
    retired_.push_back(std::move(detector));
  }
  wake_.notify_all();
}

void ModelManager::requantize(std::string why) {
  {
    std::lock_guard lock(mutex_);
    requantize_asked_ = std::move(why);
  }
  wake_.notify_all();
}

void ModelManager::drift_over() {
  {
    std::lock_guard lock(mutex_);
    drift_over_ = true;
  }
  wake_.notify_all();
}

bool ModelManager::stop(std::chrono::milliseconds limit) {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  return worker_.stop_within(limit);
}

void ModelManager::run() {
  // Building a model (parsing, packing weights, a warm-up run) is background work: at nice 10 it
  // takes the CPU time the stream leaves, so frames keep their pace during a swap. Linux applies
  // a thread id's nice value to that thread alone.
  setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 10);
  for (;;) {
    std::vector<std::unique_ptr<detector::Detector>> retired;
    {
      std::unique_lock lock(mutex_);
      wake_.wait_for(lock, kTick);
      if (stopping_) break;
      retired.swap(retired_);
    }
    retired.clear();
    try {
      step();
      last_error_.clear();
    } catch (const std::exception& e) {
      // step() reports what it expects (a model that fails to load, a failed quantization);
      // anything else (the model file vanished) is said once, and tried again every tick.
      if (e.what() != last_error_) {
        last_error_ = e.what();
        events_.emit(config::LogLevel::kError, fieldlog::EventKind::kModelError,
                     std::string("model: ") + e.what());
      }
    }
  }
  int8_.stop();
  requantizer_.cancel();
}

void ModelManager::step() {
  config::ModelConfig model;
  std::uint64_t generation = 0;
  std::optional<std::string> asked;
  bool agrees_again = false;
  {
    std::lock_guard lock(mutex_);
    model = wanted_;
    generation = generation_;
    asked.swap(requantize_asked_);
    agrees_again = std::exchange(drift_over_, false);
  }
  step_requantize(model, std::move(asked), agrees_again);
  const Plan p = plan(model);
  if (p.make.empty()) int8_.drop();
  step_run(model, p, generation);
  if (!wants_int8(model.precision)) {
    int8_.set(Int8Maker::State::kNotWanted);
  } else if (p.make.empty()) {
    if (running_ == p.run) int8_.set(Int8Maker::State::kRunning);
  } else {
    int8_.step(model, p.make, p.fp32.imgsz, generation);
  }
  step_auto(model, p);
  share_pair(p);
}

void ModelManager::share_pair(const Plan& p) {
  if (!options_.checks) return;
  if (!p.int8 || !running_) {
    options_.checks->set_pair(
        std::nullopt,
        "no INT8 file of model.path to check against FP32 (set model.int8_path, "
        "or quantize: auto makes one for precision int8 or auto)");
    return;
  }
  ShadowPair pair{detector_options(p.fp32), detector_options(*p.int8),
                  running_->precision == config::Precision::kInt8 ? runtime::Precision::kInt8
                                                                  : runtime::Precision::kFp32,
                  int8_version_};
  options_.checks->set_pair(std::move(pair));
}

void ModelManager::step_requantize(const config::ModelConfig& model,
                                   std::optional<std::string> asked, bool agrees_again) {
  if (replaced_ && model.int8_path != replaced_->first) replaced_.reset();
  const Plan p = plan(model);
  if (hold_fp32_ && (requantizer_.pair().fp32 != p.fp32 || !p.int8)) {
    // A reload changed the model: a new file would be of another one, and the held one is gone.
    requantizer_.cancel();
    hold_fp32_ = false;
    events_.emit(config::LogLevel::kInfo, fieldlog::EventKind::kQuantizeCancelled,
                 "requantize given up: the config's model changed", {{"trigger", "drift"}});
  }
  if (agrees_again && hold_fp32_ && !requantizer_.active()) {
    // After a failed requantize the old file agrees again (the checks say so): it runs again.
    hold_fp32_ = false;
    requantizer_.cancel();
  }
  std::optional<Requantizer::Outcome> outcome;
  if (asked && !requantizer_.active()) {
    if (!p.int8) {
      outcome = Requantizer::Outcome{"there is no INT8 file of model.path to replace", ""};
    } else {
      hold_fp32_ = true;
      const RequantizeFiles files = requantize_files(model, *p.int8, options_.int8_dir);
      outcome = requantizer_.begin(model, {p.fp32, *p.int8}, files, *asked);
    }
  } else if (requantizer_.active()) {
    outcome = requantizer_.step();
  }
  if (!outcome) return;
  const RequantizeFiles& files = requantizer_.files();
  if (outcome->failure) {
    events_.emit(config::LogLevel::kError, fieldlog::EventKind::kQuantizeFailed,
                 "requantize failed: " + *outcome->failure +
                     "; FP32 keeps running until the checks try again",
                 {{"error", *outcome->failure}, {"trigger", "drift"}});
  } else {
    if (!model.int8_path.empty()) replaced_ = {model.int8_path, files.final_file};
    ++int8_version_;
    hold_fp32_ = false;
    events_.emit(config::LogLevel::kInfo, fieldlog::EventKind::kQuantizeDone,
                 "made " + files.final_file.string() + " again from this camera's frames (" +
                     outcome->figures + "); switching to it",
                 {{"file", files.final_file.string()}, {"trigger", "drift"}});
  }
  if (options_.checks) options_.checks->requantize_ended(outcome->failure);
}

void ModelManager::step_run(const config::ModelConfig& model, const Plan& p,
                            std::uint64_t generation) {
  if (running_ == p.run ||
      (failed_build_ && failed_build_->first == p.run && failed_build_->second == generation)) {
    return;
  }
  try {
    LoadedModel loaded = build(p.run, model);
    events_.emit(config::LogLevel::kInfo, fieldlog::EventKind::kModelBuilt,
                 "built " + describe(p.run) + " beside the running model in " +
                     std::to_string(std::lround(loaded.build_ms)) + " ms; swapping it in",
                 {{"file", p.run.file.string()},
                  {"precision", runtime::precision_name(loaded.info->precision)},
                  {"build_ms", text::rounded(loaded.build_ms, 1)}});
    inference_->swap_in(std::move(loaded));
    running_ = p.run;
  } catch (const std::exception& e) {
    failed_build_ = {p.run, generation};
    events_.emit(config::LogLevel::kError, fieldlog::EventKind::kModelFailed,
                 "cannot load " + p.run.file.string() + ": " + e.what() + "; still running " +
                     (running_ ? describe(*running_) : "the old model"),
                 {{"file", p.run.file.string()}, {"error", e.what()}});
  }
}

void ModelManager::step_auto(const config::ModelConfig& model, const Plan& p) {
  if (options_.checks && model.precision == config::Precision::kAuto && running_ == p.fp32) {
    if (const std::optional<LiveAgreement> live = options_.checks->live_agreement()) {
      auto_.rejudge(p, *live, Clock::now());
    }
  }
  if (std::optional<TrialOutcome> outcome = auto_.take_outcome()) {
    if (std::optional<LoadedModel> int8 = auto_.finish(model, p, std::move(*outcome))) {
      inference_->swap_in(std::move(*int8));
      running_ = *p.candidate;
    }
    return;
  }
  switch (auto_.next(model, p, running_ == p.fp32, Clock::now())) {
    case PrecisionAuto::Next::kWait:
      return;
    case PrecisionAuto::Next::kCancel:
      inference_->cancel_trial();
      return;
    case PrecisionAuto::Next::kMeasure:
      break;
  }
  LoadedModel candidate;
  try {
    candidate = build(*p.candidate, model);
  } catch (const std::exception& e) {
    auto_.cannot_load(model, p, e.what());
    return;
  }
  auto_.measuring(p);
  inference_->start_trial(std::move(candidate), [this](TrialOutcome o) {
    auto_.hand_over(std::move(o));
    wake_.notify_all();
  });
}

bool ModelManager::auto_wanted() const {
  std::lock_guard lock(mutex_);
  return wanted_.precision == config::Precision::kAuto;
}

std::string ModelManager::pending_summary() const {
  if (std::string requantize = requantizer_.pending_summary(); !requantize.empty()) {
    return requantize;
  }
  if (std::string int8 = int8_.pending_summary(); !int8.empty()) return int8;
  return auto_.pending_summary(auto_wanted());
}

std::optional<ModelStatus::Auto> ModelManager::auto_status() const {
  if (!auto_wanted()) return std::nullopt;
  return auto_.status();
}

}  // namespace yolo::daemon
