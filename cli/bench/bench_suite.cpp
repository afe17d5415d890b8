// SPDX-License-Identifier: Apache-2.0
#include "cli/bench/bench_suite.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <system_error>

#include "cli/common/lint_warnings.h"
#include "cli/bench/peak_rss.h"

namespace yolo::cli {

namespace {

using Clock = std::chrono::steady_clock;

// The length asked for: --queries or --duration in place of the scenario's own.
Budget asked_budget(const ScenarioSpec& spec, const SuiteOptions& options) {
  if (options.queries) return {*options.queries, 0};
  if (options.duration_s) return {1, *options.duration_s};
  return spec.budget;
}

// Rounds that can each run at least one query: a count alone (no time) of fewer queries than
// rounds gets fewer rounds.
int rounds_for(const Budget& budget, int rounds) {
  if (budget.min_seconds > 0) return rounds;
  return static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(rounds),
                                                std::max<std::size_t>(1, budget.min_queries)));
}

// Round `round` of `rounds`: its share of the queries (the first min_queries % rounds rounds take
// one more) and of the time.
Budget round_budget(const Budget& budget, int round, int rounds) {
  const auto n = static_cast<std::size_t>(rounds);
  const auto r = static_cast<std::size_t>(round);
  Budget b;
  b.min_queries = std::max<std::size_t>(1, budget.min_queries / n + (r < budget.min_queries % n));
  b.min_seconds = budget.min_seconds / rounds;
  return b;
}

// What the rounds of one precision in one scenario gathered.
struct Tally {
  ScenarioResult result;
  std::vector<double> latency_ms;
  double load_ms_sum = 0;
  int loads = 0;
  // Energy between the readings around each round, and the time between them.
  double energy_j = 0;
  double energy_seconds = 0;
  bool energy_known = true;
  // Whether a round has run (result.start is set).
  bool started = false;
};

std::uintmax_t file_size_or_zero(const std::filesystem::path& file) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  return ec ? 0 : size;
}

std::string round_label(const ScenarioSpec& spec, const PrecisionModel& p, int round, int rounds) {
  std::string label = p.name + " " + spec.name;
  if (rounds > 1) label += ", round " + std::to_string(round + 1) + "/" + std::to_string(rounds);
  return label;
}

// What a scenario counts: queries, or frames offline.
const char* unit(const ScenarioSpec& spec, std::size_t n) {
  if (spec.free_running) return n == 1 ? "frame" : "frames";
  return n == 1 ? "query" : "queries";
}

std::string round_summary(const ScenarioSpec& spec, const std::string& label,
                          const Measurement& m) {
  char text[200];
  const auto stats = vision::summarize(m.latency_ms);
  std::snprintf(text, sizeof text, "%s: %zu %s in %.1f s, p50 %.2f ms, %.2f frames/s",
                label.c_str(), m.latency_ms.size(), unit(spec, m.latency_ms.size()), m.seconds,
                stats.p50, m.throughput());
  return text;
}

// One round of one precision: load the engines, warm them up, time them, unload them (so the
// round's peak memory is this precision's alone).
void run_round(const ScenarioSpec& spec, const PrecisionModel& p, const SuiteOptions& options,
               const Budget& budget, const std::string& label, DeviceMonitor& device,
               const SuiteProgress& progress, Tally& tally, bool& peak_reset) {
  peak_reset = reset_peak_rss() && peak_reset;
  runtime::EngineOptions engine_options;
  engine_options.precision = p.precision;
  engine_options.threads = spec.threads;
  engine_options.imgsz = options.imgsz;
  std::vector<std::unique_ptr<runtime::Engine>> engines;
  std::vector<runtime::Engine*> running;
  for (int e = 0; e < spec.engines; ++e) {
    const auto load_start = Clock::now();
    engines.push_back(runtime::Engine::load(p.load, engine_options));
    tally.load_ms_sum +=
        std::chrono::duration<double, std::milli>(Clock::now() - load_start).count();
    ++tally.loads;
    engines.back()->set_threads(spec.threads);
    fill_test_pattern(*engines.back());
    running.push_back(engines.back().get());
  }
  for (auto* engine : running) {
    for (int i = 0; i < options.warmup; ++i) engine->run();
  }

  const DeviceReading before = device.read();
  if (!tally.started) tally.result.start = before;
  tally.started = true;
  if (progress.begin) progress.begin(label, unit(spec, 2), budget);
  const Measurement m =
      spec.free_running ? measure_throughput(running, budget, progress.update)
                        : measure_queries(running, spec.frames_per_query, budget, progress.update);
  const DeviceReading after = device.read();
  if (progress.end) progress.end(round_summary(spec, label, m));

  tally.result.end = after;
  if (before.energy_j && after.energy_j) {
    tally.energy_j += *after.energy_j - *before.energy_j;
    tally.energy_seconds += std::chrono::duration<double>(after.time - before.time).count();
  } else {
    tally.energy_known = false;
  }
  tally.result.peak_rss_mb = std::max(tally.result.peak_rss_mb, peak_rss_mb());
  tally.result.best_round_p50_ms =
      std::min(tally.result.best_round_p50_ms, vision::summarize(m.latency_ms).p50);
  tally.latency_ms.insert(tally.latency_ms.end(), m.latency_ms.begin(), m.latency_ms.end());
  tally.result.frames += m.frames;
  tally.result.seconds += m.seconds;

  if (options.peer && spec.engines == 1 && spec.frames_per_query == 1) {
    const std::string peer_label = label + ", ONNX Runtime";
    if (progress.begin) progress.begin(peer_label, "runs", {m.latency_ms.size(), 0});
    const auto peer =
        options.peer->bench(p.peer_file, spec.threads, static_cast<int>(m.latency_ms.size()),
                            options.warmup, running.front()->input_width());
    if (progress.end) {
      char text[160];
      std::snprintf(text, sizeof text, "%s: %d runs, p50 %.2f ms", peer_label.c_str(), peer.runs,
                    peer.p50_ms);
      progress.end(text);
    }
    if (!tally.result.peer || peer.p50_ms < tally.result.peer->p50_ms) tally.result.peer = peer;
  }
}

ScenarioResult finish(Tally& tally) {
  ScenarioResult r = std::move(tally.result);
  r.latency = vision::summarize(std::move(tally.latency_ms));
  r.throughput = r.seconds > 0 ? static_cast<double>(r.frames) / r.seconds : 0.0;
  r.load_ms = tally.loads > 0 ? tally.load_ms_sum / tally.loads : 0.0;
  if (tally.energy_known && r.frames > 0 && tally.energy_seconds > 0) {
    r.energy_per_frame_mj = tally.energy_j * 1000.0 / static_cast<double>(r.frames);
    r.power_w = tally.energy_j / tally.energy_seconds;
  }
  if (r.peer && r.peer->p50_ms > 0) r.ratio_peer_p50 = r.best_round_p50_ms / r.peer->p50_ms;
  return r;
}

}  // namespace

double ScenarioResult::headline_value() const {
  switch (spec.headline) {
    case Headline::kMean:
      return latency.mean;
    case Headline::kP90:
      return latency.p90;
    case Headline::kP99:
      return latency.p99;
    case Headline::kThroughput:
      return throughput;
  }
  return 0;
}

std::vector<Speedup> int8_speedups(const std::vector<ScenarioResult>& results) {
  std::vector<Speedup> speedups;
  for (const auto& fp32 : results) {
    if (fp32.precision != runtime::precision_name(runtime::Precision::kFp32)) continue;
    for (const auto& int8 : results) {
      if (int8.precision != runtime::precision_name(runtime::Precision::kInt8) ||
          int8.spec.scenario != fp32.spec.scenario) {
        continue;
      }
      Speedup s;
      s.spec = fp32.spec;
      s.fp32 = fp32.headline_value();
      s.int8 = int8.headline_value();
      const bool throughput = s.spec.headline == Headline::kThroughput;
      const double num = throughput ? s.int8 : s.fp32, den = throughput ? s.fp32 : s.int8;
      s.int8_speedup = den > 0 ? num / den : 0.0;
      speedups.push_back(s);
    }
  }
  return speedups;
}

SuiteResult run_suite(const SuiteOptions& options, DeviceMonitor& device,
                      const SuiteProgress& progress) {
  SuiteResult suite;
  // Each precision loads once first, so a file that does not load fails before minutes of
  // timing the others.
  for (const auto& p : options.precisions) {
    runtime::EngineOptions engine_options;
    engine_options.precision = p.precision;
    engine_options.imgsz = options.imgsz;
    const auto engine = runtime::Engine::load(p.load, engine_options);
    print_lint_warnings(p.load.string(), engine->lint_findings());
  }
  for (const Scenario scenario : options.scenarios) {
    const ScenarioSpec spec = scenario_spec(scenario, options.cores);
    const Budget budget = asked_budget(spec, options);
    const int rounds = rounds_for(budget, options.rounds);
    std::vector<Tally> tallies(options.precisions.size());
    for (std::size_t i = 0; i < tallies.size(); ++i) {
      ScenarioResult& r = tallies[i].result;
      r.spec = spec;
      r.precision = options.precisions[i].name;
      r.file = options.precisions[i].file;
      r.file_bytes = file_size_or_zero(r.file);
      r.budget = budget;
      r.rounds = rounds;
      r.best_round_p50_ms = 1e300;
    }
    for (int round = 0; round < rounds; ++round) {
      // Odd rounds take the precisions in reverse (A B, B A, ...), so neither always runs on
      // the device the other has just warmed.
      for (std::size_t k = 0; k < options.precisions.size(); ++k) {
        const std::size_t i = round % 2 == 0 ? k : options.precisions.size() - 1 - k;
        const PrecisionModel& p = options.precisions[i];
        run_round(spec, p, options, round_budget(budget, round, rounds),
                  round_label(spec, p, round, rounds), device, progress, tallies[i],
                  suite.peak_rss_per_round);
      }
    }
    for (auto& tally : tallies) suite.results.push_back(finish(tally));
  }
  return suite;
}

}  // namespace yolo::cli
