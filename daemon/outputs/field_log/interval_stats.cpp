// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/field_log/interval_stats.h"

#include <algorithm>
#include <cmath>

#include "fieldlog/keys.h"
#include "text/format.h"
#include "text/time_format.h"
#include "vision/latency_stats.h"

namespace yolo::daemon {

namespace {

// The stages of StageTimes, as the line names them.
constexpr std::array<const char*, 5> kStageNames = {"capture_age", "preprocess", "inference",
                                                    "postprocess", "end_to_end"};

std::array<double, 5> stage_values(const StageTimes& t) {
  return {t.capture_age_ms, t.preprocess_ms, t.inference_ms, t.postprocess_ms, t.end_to_end_ms};
}

// Figures in a line carry no more digits than they are worth; dividing by the power of ten
// (rather than multiplying by its inverse) gives the double nearest to the decimal, which JSON
// then prints without a tail of 9s.
bool same_model(const ModelInfo& a, const ModelInfo& b) {
  return a.name == b.name && a.precision == b.precision && a.input_width == b.input_width &&
         a.input_height == b.input_height;
}

nlohmann::ordered_json latency_summary(const std::vector<double>& samples_ms) {
  const vision::LatencyStats s = vision::summarize(samples_ms);
  return {{"p50", text::rounded(s.p50, 3)},
          {"p90", text::rounded(s.p90, 3)},
          {"p99", text::rounded(s.p99, 3)},
          {"mean", text::rounded(s.mean, 3)},
          {"max", text::rounded(s.max, 3)}};
}

}  // namespace

IntervalStats::IntervalStats(std::string host, SteadyTime start)
    : host_(std::move(host)), start_(start) {}

void IntervalStats::add(const FrameResult& result) {
  const SteadyTime done =
      result.captured + std::chrono::duration_cast<SteadyTime::duration>(
                            std::chrono::duration<double, std::milli>(result.times.end_to_end_ms));
  if (last_done_) {
    gaps_ms_.push_back(std::chrono::duration<double, std::milli>(done - *last_done_).count());
  }
  last_done_ = done;
  if (frames_ == 0) first_index_ = result.index;
  last_index_ = result.index;
  ++frames_;
  dropped_ += result.dropped;
  CameraFrames& camera = cameras_[result.camera];
  if (camera.frames++ == 0) camera.first = result.index;
  camera.last = result.index;
  camera.skipped += result.dropped;
  if (result.model) model_ = result.model;
  threads_ = result.threads;
  ++frames_by_threads_[result.threads];
  const auto values = stage_values(result.times);
  for (std::size_t i = 0; i < kStages; ++i) latency_ms_[i].push_back(values[i]);
  for (const auto& detection : result.detections) ++detections_[detection.class_id];
}

void IntervalStats::add(const Int8CheckFigures& figures) {
  if (!checks_at_start_) checks_at_start_ = figures.checks_total;
  checks_ = figures;
}

void IntervalStats::add(const telemetry::Sample& sample) {
  ++samples_;
  if (const auto hottest = sample.max_celsius()) {
    max_celsius_ = std::max(max_celsius_.value_or(*hottest), *hottest);
  }
  if (sample.cpu_busy_total) {
    cpu_total_sum_ += *sample.cpu_busy_total;
    ++cpu_total_count_;
  }
  if (!sample.cpu_busy.empty()) {
    // A changed core count (CPU hotplug) restarts the per-core means.
    if (cpu_core_sums_.size() != sample.cpu_busy.size()) {
      cpu_core_sums_.assign(sample.cpu_busy.size(), 0.0);
      cpu_core_count_ = 0;
    }
    for (std::size_t i = 0; i < sample.cpu_busy.size(); ++i) {
      cpu_core_sums_[i] += sample.cpu_busy[i];
    }
    ++cpu_core_count_;
  }
  if (sample.energy_j) {
    const EnergyPoint point{sample.mono, *sample.energy_j};
    // A counter that went backwards was restarted: measure from its new start.
    if (!energy_base_ || point.joules < energy_last_.value_or(*energy_base_).joules) {
      energy_base_ = point;
      energy_last_.reset();
    } else {
      energy_last_ = point;
    }
  }
  last_sample_ = sample;
}

void IntervalStats::add_unlogged(std::int64_t results) {
  unlogged_ += results;
}

bool IntervalStats::runs_other_model(const FrameResult& result) const {
  return frames_ > 0 && model_ && result.model && model_ != result.model &&
         !same_model(*model_, *result.model);
}

std::optional<double> IntervalStats::mean_power_w() const {
  if (!energy_base_ || !energy_last_) return std::nullopt;
  const double seconds =
      std::chrono::duration<double>(energy_last_->mono - energy_base_->mono).count();
  if (seconds <= 0) return std::nullopt;
  return (energy_last_->joules - energy_base_->joules) / seconds;
}

nlohmann::ordered_json IntervalStats::line(std::chrono::system_clock::time_point wall_end,
                                           SteadyTime end) const {
  const double duration_s = std::max(0.0, std::chrono::duration<double>(end - start_).count());
  nlohmann::ordered_json j;
  j[fieldlog::key::kType] = fieldlog::kIntervalLine;
  j[fieldlog::key::kTime] = text::iso8601_utc(wall_end);
  j[fieldlog::key::kDurationS] = text::rounded(duration_s, 3);
  j[fieldlog::key::kHost] = host_;
  if (model_) {
    j[fieldlog::key::kModel] = model_->name;
    j[fieldlog::key::kPrecision] = runtime::precision_name(model_->precision);
    j[fieldlog::key::kInput] = {model_->input_width, model_->input_height};
  }
  if (threads_ > 0) j[fieldlog::key::kThreads] = threads_;
  if (frames_by_threads_.size() > 1) {
    nlohmann::ordered_json by_threads = nlohmann::ordered_json::object();
    for (const auto& [threads, frames] : frames_by_threads_) {
      by_threads[std::to_string(threads)] = frames;
    }
    j[fieldlog::key::kFramesByThreads] = std::move(by_threads);
  }
  j[fieldlog::key::kFrames] = frames_;
  j[fieldlog::key::kFps] =
      duration_s > 0 ? text::rounded(static_cast<double>(frames_) / duration_s, 2) : 0.0;
  j[fieldlog::key::kDropped] = dropped_ + unlogged_;
  if (unlogged_ > 0) j[fieldlog::key::kUnlogged] = unlogged_;
  // A daemon of several cameras: frame numbers are each camera's, so they are given per camera.
  if (cameras_.size() > 1) {
    nlohmann::ordered_json cameras = nlohmann::ordered_json::object();
    for (const auto& [name, c] : cameras_) {
      cameras[name] = {
          {fieldlog::key::kFrames, c.frames},
          {fieldlog::key::kFps,
           duration_s > 0 ? text::rounded(static_cast<double>(c.frames) / duration_s, 2) : 0.0},
          {"skipped", c.skipped},
          {fieldlog::key::kFrameFirst, c.first},
          {fieldlog::key::kFrameLast, c.last}};
    }
    j[fieldlog::key::kCameras] = std::move(cameras);
  }
  if (frames_ > 0) {
    j[fieldlog::key::kFrameFirst] = first_index_;
    j[fieldlog::key::kFrameLast] = last_index_;
    nlohmann::ordered_json latency;
    for (std::size_t i = 0; i < kStages; ++i) {
      latency[kStageNames[i]] = latency_summary(latency_ms_[i]);
    }
    j[fieldlog::key::kLatencyMs] = std::move(latency);
  }
  if (!gaps_ms_.empty()) {
    const vision::LatencyStats gaps = vision::summarize(gaps_ms_);
    j[fieldlog::key::kResultGapMs] = {{"p50", text::rounded(gaps.p50, 3)},
                                      {"max", text::rounded(gaps.max, 3)}};
  }
  nlohmann::ordered_json detections = nlohmann::ordered_json::object();
  for (const auto& [class_id, count] : detections_) {
    const std::string name =
        model_ ? model_->names.name(class_id) : vision::ClassNames().name(class_id);
    detections[name] = detections.value(name, std::int64_t{0}) + count;
  }
  j[fieldlog::key::kDetections] = std::move(detections);
  if (checks_) {
    if (checks_->agreement)
      j[fieldlog::key::kInt8Agreement] = text::rounded(*checks_->agreement, 4);
    j[fieldlog::key::kInt8Checks] = checks_->checks_total - checks_at_start_.value_or(0);
  }
  add_device(j, duration_s);
  return j;
}

void IntervalStats::add_device(nlohmann::ordered_json& line, double duration_s) const {
  if (!last_sample_) return;
  nlohmann::json device = telemetry::to_json(*last_sample_);
  // The counter's running total means nothing to a reader; the power and energy per frame
  // below are what it is for.
  device.erase("energy_j");
  if (samples_ > 0 && cpu_total_count_ > 0) {
    device[fieldlog::key::kCpuBusyTotal] =
        text::rounded(cpu_total_sum_ / static_cast<double>(cpu_total_count_), 3);
  }
  if (samples_ > 0 && cpu_core_count_ > 0) {
    nlohmann::json cores = nlohmann::json::array();
    for (double sum : cpu_core_sums_) {
      cores.push_back(text::rounded(sum / static_cast<double>(cpu_core_count_), 3));
    }
    device[fieldlog::key::kCpuBusy] = std::move(cores);
  }
  const auto power = mean_power_w();
  if (power) device[fieldlog::key::kPowerW] = text::rounded(*power, 3);

  line[fieldlog::key::kTelemetrySamples] = samples_;
  for (const auto& [key, value] : device.items()) line[key] = value;
  const auto hottest = samples_ > 0 ? max_celsius_ : last_sample_->max_celsius();
  if (hottest) line[fieldlog::key::kTempMaxC] = text::rounded(*hottest, 2);
  if (power && frames_ > 0) {
    line[fieldlog::key::kEnergyPerFrameMj] =
        text::rounded(*power * duration_s / static_cast<double>(frames_) * 1000.0, 3);
  }
}

IntervalStats IntervalStats::next(SteadyTime start) const {
  IntervalStats next(host_, start);
  next.model_ = model_;
  next.threads_ = threads_;
  next.last_done_ = last_done_;
  next.last_sample_ = last_sample_;
  next.energy_base_ = energy_last_ ? energy_last_ : energy_base_;
  // The next interval's checks count from where this one's ended.
  if (checks_) next.checks_at_start_ = checks_->checks_total;
  return next;
}

}  // namespace yolo::daemon
