// SPDX-License-Identifier: Apache-2.0
#include "daemon/model/reservoir.h"

#include <cstdio>
#include <fstream>
#include <system_error>
#include <vector>

#include <opencv2/imgcodecs.hpp>

namespace yolo::daemon {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

// Fine enough that JPEG artefacts do not move the calibrated ranges.
constexpr int kJpegQuality = 95;
// How often the count of frames seen is saved when nothing else changed.
constexpr auto kIndexSavePeriod = std::chrono::minutes(5);

constexpr const char* kIndexFile = "reservoir.json";

// Writes `bytes` to `path` through a temporary file and a rename.
void write_atomically(const fs::path& path, const std::vector<unsigned char>& bytes) {
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    if (!out.flush()) {
      std::error_code ignored;
      fs::remove(tmp, ignored);
      throw std::runtime_error("cannot write " + tmp.string() + ": " +
                               std::generic_category().message(errno));
    }
  }
  fs::rename(tmp, path);
}

}  // namespace

CalibrationReservoir::CalibrationReservoir(Events& events, fs::path dir,
                                           std::chrono::milliseconds offer_period)
    : QueuedOutput("calibration", 2, std::chrono::seconds(2), 64),
      events_(events),
      dir_(std::move(dir)),
      offer_period_(offer_period) {}

CalibrationReservoir::~CalibrationReservoir() {
  stop_worker();
}

void CalibrationReservoir::configure(const config::Config& config) {
  hand_over(config.model.calibration_frames);
  // A requantize after drift calibrates on these frames too.
  enabled_ = config.model.quantize == config::Quantize::kAuto ||
             config.checks.drift_action == config::DriftAction::kRequantize;
}

fs::path CalibrationReservoir::slot_path(int slot) const {
  char name[32];
  std::snprintf(name, sizeof name, "frame-%04d.jpg", slot);
  return dir_ / name;
}

void CalibrationReservoir::load_index() {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) {
    warning_ = "cannot create " + dir_.string() + ": " + ec.message() +
               "; calibration frames are not kept, so quantize: auto cannot work (give the "
               "daemon a writable state directory)";
    return;
  }
  count_ = 0;
  while (fs::exists(slot_path(count_))) ++count_;
  seen_ = count_;
  std::ifstream in(dir_ / kIndexFile);
  nlohmann::json index = nlohmann::json::parse(in, nullptr, false);
  if (!index.is_discarded() && index.contains("seen") && index["seen"].is_number_integer()) {
    seen_ = std::max<std::int64_t>(seen_, index["seen"].get<std::int64_t>());
  }
}

std::string CalibrationReservoir::index_text() const {
  return nlohmann::json{{"seen", seen_}, {"frames", count_}}.dump() + "\n";
}

void CalibrationReservoir::save_index(const std::string& text) {
  write_atomically(dir_ / kIndexFile, std::vector<unsigned char>(text.begin(), text.end()));
}

void CalibrationReservoir::start() {
  {
    std::lock_guard lock(mutex_);
    load_index();
    trim_to_capacity();
  }
  QueuedOutput::start();
}

void CalibrationReservoir::trim_to_capacity() {
  std::error_code ignored;
  while (count_ > capacity()) fs::remove(slot_path(--count_), ignored);
}

bool CalibrationReservoir::wants_frame(const FrameResult&) const {
  return enabled_ && Clock::now().time_since_epoch().count() >= next_offer_ns_.load();
}

void CalibrationReservoir::publish(std::shared_ptr<const FrameResult> result) {
  if (!result->frame || !enabled_) return;
  const auto now = Clock::now();
  if (now.time_since_epoch().count() < next_offer_ns_.load()) return;
  next_offer_ns_.store((now + offer_period_).time_since_epoch().count());
  push(std::move(result));
}

void CalibrationReservoir::keep(const cv::Mat& frame) {
  int slot = -1;
  {
    std::lock_guard lock(mutex_);
    trim_to_capacity();
    const int capacity = this->capacity();
    if (count_ < capacity) {
      slot = count_;
    } else {
      const auto j = std::uniform_int_distribution<std::int64_t>(0, seen_)(random_);
      if (j < capacity) slot = static_cast<int>(j);
    }
    ++seen_;
  }
  if (slot >= 0) {
    std::vector<unsigned char> jpeg;
    cv::imencode(".jpg", frame, jpeg, {cv::IMWRITE_JPEG_QUALITY, kJpegQuality});
    write_atomically(slot_path(slot), jpeg);
  }
  std::string index;
  {
    std::lock_guard lock(mutex_);
    if (slot == count_) ++count_;
    warning_.clear();
    if (slot < 0 && Clock::now() - saved_ < kIndexSavePeriod) return;
    saved_ = Clock::now();
    index = index_text();
  }
  save_index(index);
}

void CalibrationReservoir::run() {
  for (;;) {
    const auto item = queue().pop(std::chrono::seconds(1));
    if (!item) {
      // Nothing on a quiet second, or closed and drained.
      if (queue().closed()) return;
      continue;
    }
    try {
      keep(*(*item)->frame);
    } catch (const std::exception& e) {
      std::string warning = std::string("cannot keep a calibration frame: ") + e.what() +
                            "; quantize: auto cannot work until it can (give the daemon a "
                            "writable state directory)";
      bool changed = false;
      {
        std::lock_guard lock(mutex_);
        changed = warning != warning_;
        warning_ = warning;
      }
      if (changed)
        events_.emit(config::LogLevel::kWarning, fieldlog::EventKind::kCalibrationFrames, warning);
    }
  }
}

int CalibrationReservoir::count() const {
  std::lock_guard lock(mutex_);
  return count_;
}

int CalibrationReservoir::capacity() const {
  return settings();
}

nlohmann::json CalibrationReservoir::status() const {
  std::lock_guard lock(mutex_);
  nlohmann::json j = {{"ok", warning_.empty()}, {"collecting", enabled_.load()},
                      {"frames", count_},       {"capacity", capacity()},
                      {"seen", seen_},          {"dir", dir_.string()}};
  if (!warning_.empty()) j["warning"] = warning_;
  return j;
}

bool CalibrationReservoir::stop() {
  if (!stop_worker()) return false;
  std::string index;
  {
    std::lock_guard lock(mutex_);
    if (!warning_.empty()) return true;
    index = index_text();
  }
  try {
    save_index(index);
  } catch (const std::exception&) {
    // The disk went away; the count of frames seen is only a weight for later sampling.
  }
  return true;
}

}  // namespace yolo::daemon
