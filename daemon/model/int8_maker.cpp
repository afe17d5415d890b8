// SPDX-License-Identifier: Apache-2.0
#include "daemon/model/int8_maker.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>

namespace yolo::daemon {

namespace fs = std::filesystem;

namespace {

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

Int8Maker::Int8Maker(Events& events, CalibrationReservoir& reservoir, fs::path cli)
    : events_(events), reservoir_(reservoir), cli_(std::move(cli)) {}

void Int8Maker::set(State state, std::string progress, std::string error) {
  std::lock_guard lock(mutex_);
  state_ = state;
  progress_ = std::move(progress);
  error_ = std::move(error);
}

void Int8Maker::drop() {
  if (!job_) return;
  stop();
  events_.emit(config::LogLevel::kInfo, fieldlog::EventKind::kQuantizeCancelled,
               "quantization cancelled: the config no longer asks for it");
}

void Int8Maker::stop() {
  if (!job_) return;
  job_->cancel();
  job_.reset();
}

void Int8Maker::step(const config::ModelConfig& model, const fs::path& make,
                     const runtime::InputSize& imgsz, std::uint64_t generation) {
  if (job_ && job_->request().out != make) stop();
  if (job_) {
    follow(model, make, generation);
    return;
  }
  if (failed_ && failed_->first == make && failed_->second == generation) return;
  start(model, make, imgsz, generation);
}

void Int8Maker::follow(const config::ModelConfig& model, const fs::path& make,
                       std::uint64_t generation) {
  if (!job_->finished()) {
    set(State::kQuantizing, job_->progress());
    return;
  }
  const double seconds = job_->elapsed_s();
  if (job_->succeeded()) {
    events_.emit(config::LogLevel::kInfo, fieldlog::EventKind::kQuantizeDone,
                 "made " + make.string() + " in " + std::to_string(std::lround(seconds)) +
                     " s; switching to it",
                 {{"file", make.string()}, {"seconds", std::round(seconds)}});
    set(State::kQuantizing, "done; loading the INT8 model");
  } else {
    const std::string why = job_->failure();
    fail(make, generation, why, "quantizing " + model.path.string() + " failed: " + why,
         {{"file", make.string()}, {"error", why}});
  }
  job_.reset();
}

void Int8Maker::start(const config::ModelConfig& model, const fs::path& make,
                      const runtime::InputSize& imgsz, std::uint64_t generation) {
  const int have = reservoir_.count();
  const int need = model.calibration_frames;
  if (have < need) {
    const nlohmann::json r = reservoir_.status();
    std::string progress =
        "collecting calibration frames " + std::to_string(have) + "/" + std::to_string(need);
    if (r.contains("warning")) {
      set(State::kFailed, progress, r["warning"].get<std::string>());
    } else {
      set(State::kCollecting, progress);
    }
    return;
  }
  if (const std::string problem = unwritable_folder(make.parent_path()); !problem.empty()) {
    const std::string why = "cannot write the INT8 model into " + make.parent_path().string() +
                            ": " + problem +
                            "; it must be a folder the daemon's user can write (set "
                            "model.int8_path, or give the folder to that user)";
    fail(make, generation, why, why, {{"file", make.string()}, {"error", why}});
    return;
  }
  QuantizeJob::Request request;
  request.cli = cli_;
  request.model = model.path;
  request.calibration = reservoir_.dir();
  request.out = make;
  request.report = fs::path(make).replace_extension(".json");
  request.frames = need;
  request.imgsz = imgsz;
  try {
    job_ = std::make_unique<QuantizeJob>(request);
  } catch (const std::exception& e) {
    fail(make, generation, e.what(), e.what(), {{"error", e.what()}});
    return;
  }
  events_.emit(config::LogLevel::kInfo, fieldlog::EventKind::kQuantizeStarted,
               "quantizing " + model.path.filename().string() + " to INT8 on " +
                   std::to_string(have) +
                   " calibration frames from this camera, at a lower priority (nice " +
                   std::to_string(QuantizeJob::kQuantizeNice) + ")",
               {{"file", make.string()}, {"frames", have}});
  set(State::kQuantizing, "starting");
}

void Int8Maker::fail(const fs::path& make, std::uint64_t generation, const std::string& why,
                     const std::string& message, nlohmann::json fields) {
  failed_ = {make, generation};
  events_.emit(config::LogLevel::kError, fieldlog::EventKind::kQuantizeFailed,
               message + "; running fp32 until a reload", std::move(fields));
  set(State::kFailed, "", why);
}

std::string Int8Maker::pending_summary() const {
  std::lock_guard lock(mutex_);
  switch (state_) {
    case State::kNotWanted:
    case State::kRunning:
      return "";
    case State::kCollecting:
      return "int8 pending: " + progress_;
    case State::kQuantizing:
      return "int8 pending: quantizing (" + progress_ + ")";
    case State::kFailed:
      return "int8 failed: " + error_;
  }
  return "";
}

}  // namespace yolo::daemon
