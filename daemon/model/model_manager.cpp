// SPDX-License-Identifier: Apache-2.0
#include "daemon/model/model_manager.h"

#include "runtime/model/model_lint.h"
#include "text/format.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <opencv2/core.hpp>

namespace yolo::daemon {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

// How often the manager looks at the reservoir and a running quantization.
constexpr auto kTick = std::chrono::milliseconds(500);
// Precision auto: how long an undecided trial (nothing detected to compare) waits to run again,
// on other frames.
constexpr auto kAutoRetry = std::chrono::minutes(10);

vision::DecoderKind decoder_kind(config::Decoder d) {
  switch (d) {
    case config::Decoder::kAuto:
      return vision::DecoderKind::kAuto;
    case config::Decoder::kYolov8:
      return vision::DecoderKind::kYolov8;
    case config::Decoder::kEnd2end:
      return vision::DecoderKind::kEnd2End;
    case config::Decoder::kYolov5:
      return vision::DecoderKind::kYolov5;
  }
  return vision::DecoderKind::kAuto;
}

// FNV-1a over the file's bytes: enough to tell two versions of a model apart.
std::uint64_t content_hash(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::uint64_t hash = 1469598103934665603ULL;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    for (std::streamsize i = 0; i < in.gcount(); ++i) {
      hash ^= static_cast<unsigned char>(buffer[i]);
      hash *= 1099511628211ULL;
    }
  }
  if (in.bad()) throw std::runtime_error("cannot read " + file.string());
  return hash;
}

std::string describe(const ModelTarget& t) {
  std::string text = t.file.filename().string() + " (" + precision_name(t.precision);
  if (t.imgsz.mode == runtime::InputSize::Mode::kFixed) text += ", " + runtime::to_string(t.imgsz);
  return text + ")";
}

bool wants_int8(config::Precision p) {
  return p == config::Precision::kInt8 || p == config::Precision::kAuto;
}

// model.imgsz as the engine takes it: auto with the frame size (when known).
runtime::InputSize requested_size(const runtime::InputSize& size, cv::Size frame) {
  if (size.mode != runtime::InputSize::Mode::kAuto) return size;
  return runtime::InputSize::automatic(frame.height, frame.width);
}

// Creates `folder` if needed; what stops this process from writing files into it, or "".
std::string unwritable_folder(const fs::path& folder) {
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) return "cannot create it (" + ec.message() + ")";
  if (access(folder.c_str(), W_OK | X_OK) != 0) {
    const std::string error = std::strerror(errno);
    struct stat st {};
    const std::string owner =
        stat(folder.c_str(), &st) == 0 ? "owned by uid " + std::to_string(st.st_uid) + ", " : "";
    return error + " (" + owner + "this process runs as uid " + std::to_string(geteuid()) + ")";
  }
  return "";
}

}  // namespace

ModelManager::ModelManager(Events& events, Options options, CalibrationReservoir& reservoir)
    : events_(events), options_(std::move(options)), reservoir_(reservoir) {}

ModelManager::~ModelManager() {
  stop(std::chrono::milliseconds(5000));
}

const runtime::ModelFile& ModelManager::model_file(const fs::path& path) {
  const auto size = fs::file_size(path);
  const auto mtime = fs::last_write_time(path);
  if (!file_cache_ || file_cache_->path != path || file_cache_->size != size ||
      file_cache_->mtime != mtime) {
    file_cache_ = FileCache{path, size, mtime, runtime::read_model_file(path)};
  }
  return file_cache_->file;
}

runtime::InputSize ModelManager::input_size(const config::ModelConfig& model) {
  const cv::Size frame = inference_ ? inference_->frame_size() : cv::Size();
  const runtime::InputSize request = requested_size(model.imgsz, frame);
  if (request.mode == runtime::InputSize::Mode::kModel) return request;
  return model_file(model.path).input_for(request, "model.imgsz");
}

fs::path ModelManager::made_int8_path(const config::ModelConfig& model,
                                      const runtime::InputSize& imgsz) {
  if (!model.int8_path.empty()) return model.int8_path;
  const fs::path& file = model.path;
  const auto size = fs::file_size(file);
  const auto mtime = fs::last_write_time(file);
  if (!hash_cache_ || hash_cache_->path != file || hash_cache_->size != size ||
      hash_cache_->mtime != mtime) {
    hash_cache_ = HashCache{file, size, mtime, content_hash(file)};
  }
  char tag[40];
  std::snprintf(tag, sizeof tag, "-%016llx", static_cast<unsigned long long>(hash_cache_->hash));
  std::string name = file.stem().string() + tag;
  if (imgsz.mode == runtime::InputSize::Mode::kFixed) {
    name += "-" + (imgsz.height == imgsz.width ? std::to_string(imgsz.height)
                                               : runtime::to_string(imgsz));
  }
  return options_.int8_dir / (name + ".int8.onnx");
}

ModelManager::Plan ModelManager::plan(const config::ModelConfig& model) {
  Plan p;
  const runtime::InputSize imgsz = input_size(model);
  p.fp32 = {model.path, config::Precision::kFp32, imgsz, model.labels, model.decoder};
  p.run = p.fp32;
  // A static INT8 model.path is its own INT8 model.
  const bool static_int8 = model_file(model.path).precision == runtime::Precision::kInt8;
  if (model.precision == config::Precision::kFile && static_int8) {
    p.run.precision = config::Precision::kInt8;
  }
  if (!wants_int8(model.precision)) return p;
  ModelTarget int8 = p.fp32;
  int8.precision = config::Precision::kInt8;
  if (!model.int8_path.empty() && fs::exists(model.int8_path)) {
    int8.file = model.int8_path;
  } else if (static_int8) {
    int8.file = model.path;
  } else {
    // The config check refuses int8 and auto without int8_path unless quantize is auto.
    const fs::path made = made_int8_path(model, imgsz);
    if (!fs::exists(made)) {
      p.make = made;
      return p;
    }
    int8.file = made;
  }
  if (model.precision == config::Precision::kInt8) {
    p.run = int8;
    return p;
  }
  p.candidate = int8;
  if (auto_ && auto_->fp32 == p.fp32 && auto_->int8 == int8 &&
      auto_->choice.precision == runtime::Precision::kInt8) {
    p.run = int8;
  }
  return p;
}

LoadedModel ModelManager::build(const ModelTarget& target, const config::ModelConfig& model) {
  const auto start = Clock::now();
  detector::DetectorOptions options;
  options.model = target.file;
  options.engine.precision = target.precision == config::Precision::kInt8
                                 ? runtime::Precision::kInt8
                                 : runtime::Precision::kFp32;
  options.engine.threads = 1;
  options.engine.imgsz = target.imgsz;
  options.engine.imgsz_key = "model.imgsz";
  options.labels = target.labels;
  options.decode.kind = decoder_kind(target.decoder);
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
  std::lock_guard lock(mutex_);
  running_ = p.run;
  if (wants_int8(model.precision)) {
    int8_state_ = p.make.empty() ? Int8State::kRunning : Int8State::kCollecting;
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

bool ModelManager::stop(std::chrono::milliseconds limit) {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  return worker_.stop_within(limit);
}

void ModelManager::set_int8(Int8State state, std::string progress, std::string error) {
  std::lock_guard lock(mutex_);
  int8_state_ = state;
  int8_progress_ = std::move(progress);
  int8_error_ = std::move(error);
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
  if (job_) {
    job_->cancel();
    job_.reset();
  }
}

void ModelManager::step() {
  config::ModelConfig model;
  std::uint64_t generation = 0;
  std::optional<ModelTarget> running;
  {
    std::lock_guard lock(mutex_);
    model = wanted_;
    generation = generation_;
    running = running_;
  }
  const Plan p = plan(model);
  if (p.make.empty() && job_) {
    job_->cancel();
    job_.reset();
    events_.emit(config::LogLevel::kInfo, fieldlog::EventKind::kQuantizeCancelled,
                 "quantization cancelled: the config no longer asks for it");
  }
  if (running != p.run &&
      !(failed_build_ && failed_build_->first == p.run && failed_build_->second == generation)) {
    try {
      LoadedModel loaded = build(p.run, model);
      events_.emit(config::LogLevel::kInfo, fieldlog::EventKind::kModelBuilt,
                   "built " + describe(p.run) + " beside the running model in " +
                       std::to_string(std::lround(loaded.build_ms)) + " ms; swapping it in",
                   {{"file", p.run.file.string()},
                    {"precision", runtime::precision_name(loaded.info->precision)},
                    {"build_ms", text::rounded(loaded.build_ms, 1)}});
      inference_->swap_in(std::move(loaded));
      std::lock_guard lock(mutex_);
      running_ = p.run;
    } catch (const std::exception& e) {
      failed_build_ = {p.run, generation};
      events_.emit(config::LogLevel::kError, fieldlog::EventKind::kModelFailed,
                   "cannot load " + p.run.file.string() + ": " + e.what() + "; still running " +
                       (running ? describe(*running) : "the old model"),
                   {{"file", p.run.file.string()}, {"error", e.what()}});
    }
  }
  if (!wants_int8(model.precision)) {
    set_int8(Int8State::kNotWanted, "");
  } else if (p.make.empty()) {
    std::lock_guard lock(mutex_);
    if (running_ == p.run) {
      int8_state_ = Int8State::kRunning;
      int8_progress_.clear();
      int8_error_.clear();
    }
  } else {
    step_quantization(model, p.make, p.fp32.imgsz);
  }
  step_auto(model, p);
}

void ModelManager::step_auto(const config::ModelConfig& model, const Plan& p) {
  std::optional<TrialOutcome> outcome;
  bool measuring = false;
  {
    std::lock_guard lock(mutex_);
    outcome = std::exchange(trial_outcome_, std::nullopt);
    measuring = trial_candidate_.has_value();
  }
  if (outcome) {
    finish_trial(model, p, std::move(*outcome));
    return;
  }
  if (model.precision != config::Precision::kAuto || !p.candidate) {
    // Auto was dropped, or its INT8 file is gone: the trial measures nothing wanted any more.
    if (measuring) inference_->cancel_trial();
    return;
  }
  if (measuring) return;
  const bool known = auto_ && auto_->fp32 == p.fp32 && auto_->int8 == *p.candidate;
  if (known && (auto_->choice.decided || Clock::now() < auto_->retry_at)) return;
  {
    // The trial measures INT8 against FP32 running: a decision for other models swaps FP32 in
    // first (step() has asked for it).
    std::lock_guard lock(mutex_);
    if (running_ != p.fp32) return;
  }
  LoadedModel candidate;
  try {
    candidate = build(*p.candidate, model);
  } catch (const std::exception& e) {
    detector::PrecisionChoice choice;
    choice.min_map50 = model.auto_min_map50;
    choice.reason =
        "FP32: the INT8 model " + p.candidate->file.string() + " cannot be loaded: " + e.what();
    decide(p, choice,
           {{"precision", runtime::precision_name(runtime::Precision::kFp32)},
            {"decided", true},
            {"reason", choice.reason}},
           {});
    return;
  }
  events_.emit(config::LogLevel::kInfo, fieldlog::EventKind::kPrecisionTrial,
               "precision auto: measuring " + describe(p.fp32) + " against " +
                   describe(*p.candidate) + " on this camera's frames",
               {{runtime::precision_name(runtime::Precision::kFp32), p.fp32.file.string()},
                {runtime::precision_name(runtime::Precision::kInt8), p.candidate->file.string()}});
  {
    std::lock_guard lock(mutex_);
    trial_candidate_ = *p.candidate;
  }
  inference_->start_trial(std::move(candidate), [this](TrialOutcome o) {
    {
      std::lock_guard lock(mutex_);
      trial_outcome_ = std::move(o);
    }
    wake_.notify_all();
  });
}

void ModelManager::finish_trial(const config::ModelConfig& model, const Plan& p,
                                TrialOutcome outcome) {
  std::optional<ModelTarget> measured;
  {
    std::lock_guard lock(mutex_);
    measured = std::exchange(trial_candidate_, std::nullopt);
  }
  const bool cancelled = !outcome.figures && outcome.error.empty();
  const bool stale =
      model.precision != config::Precision::kAuto || !p.candidate || measured != p.candidate;
  // The candidate is freed here, on this thread, unless INT8 wins.
  if (cancelled || stale) return;
  if (!outcome.error.empty()) {
    detector::PrecisionChoice choice;
    choice.min_map50 = model.auto_min_map50;
    choice.reason = "FP32: the INT8 model " + p.candidate->file.string() +
                    " failed on a frame: " + outcome.error;
    decide(p, choice,
           {{"precision", runtime::precision_name(runtime::Precision::kFp32)},
            {"decided", true},
            {"reason", choice.reason}},
           {});
    return;
  }
  const detector::PrecisionChoice choice =
      detector::choose_precision(*outcome.figures, model.auto_min_map50);
  nlohmann::json json = detector::to_json(choice, *outcome.figures);
  decide(p, choice, std::move(json), std::move(outcome.candidate));
}

void ModelManager::decide(const Plan& p, detector::PrecisionChoice choice, nlohmann::json json,
                          LoadedModel candidate) {
  events_.emit(config::LogLevel::kInfo, fieldlog::EventKind::kPrecisionChosen,
               "precision auto: " + choice.reason, json);
  const bool int8 = choice.precision == runtime::Precision::kInt8;
  if (int8) inference_->swap_in(std::move(candidate));
  std::lock_guard lock(mutex_);
  if (int8) running_ = *p.candidate;
  auto_ = AutoDecision{p.fp32, *p.candidate, std::move(choice), std::move(json),
                       Clock::now() + kAutoRetry};
}

void ModelManager::step_quantization(const config::ModelConfig& model, const fs::path& make,
                                     const runtime::InputSize& imgsz) {
  std::uint64_t generation = 0;
  {
    std::lock_guard lock(mutex_);
    generation = generation_;
  }
  if (job_ && job_->request().out != make) {
    job_->cancel();
    job_.reset();
  }
  if (job_) {
    if (!job_->finished()) {
      set_int8(Int8State::kQuantizing, job_->progress());
      return;
    }
    const double seconds = job_->elapsed_s();
    if (job_->succeeded()) {
      events_.emit(config::LogLevel::kInfo, fieldlog::EventKind::kQuantizeDone,
                   "made " + make.string() + " in " + std::to_string(std::lround(seconds)) +
                       " s; switching to it",
                   {{"file", make.string()}, {"seconds", std::round(seconds)}});
      set_int8(Int8State::kQuantizing, "done; loading the INT8 model");
    } else {
      failed_quantize_ = {make, generation};
      const std::string why = job_->failure();
      events_.emit(
          config::LogLevel::kError, fieldlog::EventKind::kQuantizeFailed,
          "quantizing " + model.path.string() + " failed: " + why + "; running fp32 until a reload",
          {{"file", make.string()}, {"error", why}});
      set_int8(Int8State::kFailed, "", why);
    }
    job_.reset();
    return;
  }
  if (failed_quantize_ && failed_quantize_->first == make &&
      failed_quantize_->second == generation) {
    return;
  }
  const int have = reservoir_.count();
  const int need = model.calibration_frames;
  if (have < need) {
    const nlohmann::json r = reservoir_.status();
    std::string progress =
        "collecting calibration frames " + std::to_string(have) + "/" + std::to_string(need);
    if (r.contains("warning")) {
      set_int8(Int8State::kFailed, progress, r["warning"].get<std::string>());
    } else {
      set_int8(Int8State::kCollecting, progress);
    }
    return;
  }
  if (const std::string problem = unwritable_folder(make.parent_path()); !problem.empty()) {
    failed_quantize_ = {make, generation};
    const std::string why = "cannot write the INT8 model into " + make.parent_path().string() +
                            ": " + problem +
                            "; it must be a folder the daemon's user can write (set "
                            "model.int8_path, or give the folder to that user)";
    events_.emit(config::LogLevel::kError, fieldlog::EventKind::kQuantizeFailed,
                 why + "; running fp32 until a reload", {{"file", make.string()}, {"error", why}});
    set_int8(Int8State::kFailed, "", why);
    return;
  }
  QuantizeJob::Request request;
  request.cli = options_.cli;
  request.model = model.path;
  request.calibration = reservoir_.dir();
  request.out = make;
  request.report = fs::path(make).replace_extension(".json");
  request.frames = need;
  request.imgsz = imgsz;
  try {
    job_ = std::make_unique<QuantizeJob>(request);
  } catch (const std::exception& e) {
    failed_quantize_ = {make, generation};
    events_.emit(config::LogLevel::kError, fieldlog::EventKind::kQuantizeFailed,
                 std::string(e.what()) + "; running fp32 until a reload", {{"error", e.what()}});
    set_int8(Int8State::kFailed, "", e.what());
    return;
  }
  events_.emit(config::LogLevel::kInfo, fieldlog::EventKind::kQuantizeStarted,
               "quantizing " + model.path.filename().string() + " to INT8 on " +
                   std::to_string(have) +
                   " calibration frames from this camera, at a lower priority (nice " +
                   std::to_string(QuantizeJob::kQuantizeNice) + ")",
               {{"file", make.string()}, {"frames", have}});
  set_int8(Int8State::kQuantizing, "starting");
}

std::string ModelManager::pending_summary() const {
  std::lock_guard lock(mutex_);
  switch (int8_state_) {
    case Int8State::kNotWanted:
    case Int8State::kRunning:
      if (trial_candidate_) return "auto: measuring fp32 against int8";
      if (wanted_.precision == config::Precision::kAuto && auto_ && !auto_->choice.decided) {
        return "auto: fp32 until something is detected to check int8 against";
      }
      return "";
    case Int8State::kCollecting:
      return "int8 pending: " + int8_progress_;
    case Int8State::kQuantizing:
      return "int8 pending: quantizing (" + int8_progress_ + ")";
    case Int8State::kFailed:
      return "int8 failed: " + int8_error_;
  }
  return "";
}

std::optional<ModelStatus::Auto> ModelManager::auto_status() const {
  std::lock_guard lock(mutex_);
  if (wanted_.precision != config::Precision::kAuto) return std::nullopt;
  ModelStatus::Auto a;
  if (trial_candidate_) {
    a.state = "measuring";
  } else if (auto_) {
    a.state = auto_->choice.decided ? "decided" : "undecided";
  } else {
    a.state = "waiting for the INT8 model";
  }
  if (auto_) a.decision = auto_->json;
  return a;
}

}  // namespace yolo::daemon
