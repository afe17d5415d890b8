// SPDX-License-Identifier: Apache-2.0
#pragma once

// `yolo-edge bench`'s scenario run: every scenario for every precision, in rounds that alternate
// the precisions (and the ONNX Runtime peer), so a noisy neighbour or a warming device hits them
// all alike.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cli/bench/bench_measure.h"
#include "cli/bench/bench_scenarios.h"
#include "cli/bench/device_monitor.h"
#include "cli/bench/ort_peer.h"
#include "runtime/engine/engine.h"
#include "vision/latency_stats.h"

namespace yolo::cli {

// One precision to time.
struct PrecisionModel {
  // "fp32" or "int8".
  std::string name;
  runtime::Precision precision = runtime::Precision::kFp32;
  // The file handed to the engine, and the file that runs (an FP32 file's INT8 sibling), whose
  // size is reported.
  std::filesystem::path load;
  std::filesystem::path file;
  // The file the ONNX Runtime peer runs for this precision.
  std::filesystem::path peer_file;
};

struct SuiteOptions {
  std::vector<PrecisionModel> precisions;
  std::vector<Scenario> scenarios;
  // --queries: every scenario runs exactly this many queries (frames offline), no minimum time.
  std::optional<std::size_t> queries;
  // --duration: every scenario runs this long per precision, no minimum count.
  std::optional<double> duration_s;
  // Rounds per scenario; each runs every precision (and the peer) once.
  int rounds = 3;
  // Untimed runs per engine before each round.
  int warmup = 5;
  // Input size for models with dynamic axes (0: the model's own).
  runtime::InputSize imgsz;
  // Usable cores: the threads of the practical and MLPerf scenarios.
  int cores = 1;
  // The ONNX Runtime peer, timed after each of our rounds where it can run the same way (one
  // engine, one frame per query); null: none.
  const OrtPeer* peer = nullptr;
};

// Where a long run is: a step starts (counting `unit`: queries, frames, runs), advances, and
// ends.
struct SuiteProgress {
  std::function<void(const std::string& label, const char* unit, const Budget& budget)> begin;
  ProgressFn update;
  std::function<void(const std::string& summary)> end;
};

// One precision in one scenario, over all its rounds.
struct ScenarioResult {
  ScenarioSpec spec;
  std::string precision;
  std::filesystem::path file;
  std::uintmax_t file_bytes = 0;
  // The length asked for, after --queries/--duration.
  Budget budget;
  int rounds = 0;
  // Every query's latency (every frame's, offline), and the lowest p50 of one round.
  vision::LatencyStats latency;
  double best_round_p50_ms = 0;
  std::size_t frames = 0;
  double seconds = 0;
  // Frames per second over the timed runs.
  double throughput = 0;
  // Mean time to load one engine.
  double load_ms = 0;
  // The process's peak resident memory during the rounds (VmHWM, reset before each round when
  // the kernel allows).
  double peak_rss_mb = 0;
  // Before the first round and after the last.
  DeviceReading start, end;
  // The preferred power source's energy over the timed runs, per frame, and its mean power.
  std::optional<double> energy_per_frame_mj;
  std::optional<double> power_w;
  // The peer's best round (lowest p50), and ours/peer on best-round p50s.
  std::optional<PeerResult> peer;
  std::optional<double> ratio_peer_p50;

  // The value the scenario is judged by (ms, or frames/s for throughput).
  double headline_value() const;
};

struct SuiteResult {
  std::vector<ScenarioResult> results;
  // Whether each round's peak RSS was its own (false: /proc/self/clear_refs refused, so a peak
  // carries over from earlier rounds).
  bool peak_rss_per_round = true;
};

// INT8 against FP32 in one scenario, on its headline statistic.
struct Speedup {
  ScenarioSpec spec;
  double fp32 = 0, int8 = 0;
  // How many times faster INT8 is: fp32 / int8 for a latency, int8 / fp32 for throughput.
  double int8_speedup = 0;
};
// One per scenario that has both precisions.
std::vector<Speedup> int8_speedups(const std::vector<ScenarioResult>& results);

// Runs the suite. Engine errors (a model that does not load) propagate.
SuiteResult run_suite(const SuiteOptions& options, DeviceMonitor& device,
                      const SuiteProgress& progress);

}  // namespace yolo::cli
