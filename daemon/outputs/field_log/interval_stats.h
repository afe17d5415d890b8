// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "daemon/core/daemon_status.h"
#include "daemon/core/frame_result.h"
#include "telemetry/sample.h"

namespace yolo::daemon {

// What one field-log interval saw: the results and telemetry samples that arrived in it, turned
// into one interval line (docs/field-log.md). Pure: no clock, no I/O, no threads.
class IntervalStats {
 public:
  using SteadyTime = std::chrono::steady_clock::time_point;

  // An empty interval that begins at `start`.
  IntervalStats(std::string host, SteadyTime start);

  // One processed frame. Frames of another model or precision belong in a new interval: check
  // runs_other_model() first.
  void add(const FrameResult& result);
  // One telemetry sample.
  void add(const telemetry::Sample& sample);
  // The live INT8 checks' figures, about once a second: the last one's agreement is the line's,
  // and its count of checks, less the count the interval began with, the checks done in it.
  void add(const Int8CheckFigures& figures);
  // Results the field log's own queue dropped (processed, but never seen here).
  void add_unlogged(std::int64_t results);

  // Whether `result` ran on another model, precision or input size than this interval's frames.
  bool runs_other_model(const FrameResult& result) const;
  std::int64_t frames() const { return frames_; }
  SteadyTime start() const { return start_; }

  // The interval line for an interval that ended at `end` (`wall_end` on the wall clock).
  nlohmann::ordered_json line(std::chrono::system_clock::time_point wall_end, SteadyTime end) const;

  // The interval that follows this one from `start`: it carries the last model and thread count
  // (for lines without frames), the last telemetry sample and the energy counter's last reading
  // (the baseline of the next power figure).
  IntervalStats next(SteadyTime start) const;

 private:
  // One energy counter reading.
  struct EnergyPoint {
    SteadyTime mono;
    double joules = 0;
  };
  static constexpr std::size_t kStages = 5;

  void add_device(nlohmann::ordered_json& line, double duration_s) const;
  std::optional<double> mean_power_w() const;

  std::string host_;
  SteadyTime start_;

  // The INT8 checks: the last figures, and the count of checks when the interval began.
  std::optional<Int8CheckFigures> checks_;
  std::optional<long> checks_at_start_;

  // Frames.
  std::int64_t frames_ = 0;
  std::int64_t dropped_ = 0;
  // Each camera's frames, skips and frame numbers (its own), by name.
  struct CameraFrames {
    std::int64_t frames = 0;
    std::int64_t skipped = 0;
    std::int64_t first = 0;
    std::int64_t last = 0;
  };
  std::map<std::string, CameraFrames> cameras_;
  std::int64_t unlogged_ = 0;
  std::shared_ptr<const ModelInfo> model_;
  int threads_ = 0;
  // Frames run at each thread count.
  std::map<int, std::int64_t> frames_by_threads_;
  // Latency samples per stage, in the order of kStageNames in interval_stats.cpp.
  std::array<std::vector<double>, kStages> latency_ms_;
  // Detections per class id.
  std::map<int, std::int64_t> detections_;
  // Frame numbers of the first and last result.
  std::int64_t first_index_ = -1;
  std::int64_t last_index_ = -1;
  // When the last result was ready (carried into the next interval) and the time between each
  // two results: a swap or a slow frame shows as the longest gap.
  std::optional<SteadyTime> last_done_;
  std::vector<double> gaps_ms_;

  // Telemetry.
  std::int64_t samples_ = 0;
  std::optional<telemetry::Sample> last_sample_;
  std::optional<double> max_celsius_;
  double cpu_total_sum_ = 0;
  std::int64_t cpu_total_count_ = 0;
  // Per-core busy shares summed over the samples that had this many cores.
  std::vector<double> cpu_core_sums_;
  std::int64_t cpu_core_count_ = 0;
  // The energy counter at the interval's beginning (the last reading before it, else its first)
  // and at its latest reading.
  std::optional<EnergyPoint> energy_base_;
  std::optional<EnergyPoint> energy_last_;
};

}  // namespace yolo::daemon
