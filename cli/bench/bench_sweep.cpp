// SPDX-License-Identifier: Apache-2.0
#include "cli/bench/bench_sweep.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/bench/bench_measure.h"
#include "cli/commands.h"
#include "cli/common/lint_warnings.h"
#include "cli/bench/ort_peer.h"
#include "cli/bench/peak_rss.h"
#include "runtime/engine/engine.h"
#include "vision/latency_stats.h"

namespace yolo::cli {

namespace {

using Clock = std::chrono::steady_clock;
using vision::LatencyStats;
using vision::summarize;

struct ThreadResult {
  int threads = 0;
  LatencyStats ours;
  double ours_best_round_p50 = 0;
  double peak_rss_mb = 0;
  std::optional<PeerResult> peer;  // the best round of the peer (lowest p50)
  std::optional<LatencyStats> baseline;
  double baseline_best_round_p50 = 0;
};

// What the sweep ran, for the output: the engine under test and its load time.
struct SweepRun {
  const runtime::Engine& engine;
  double load_ms = 0;
  std::string peer_model;
  bool baseline = false;
  bool peer = false;
};

std::vector<double> time_runs(runtime::Engine& engine, int runs) {
  std::vector<double> ms;
  ms.reserve(static_cast<std::size_t>(runs));
  for (int i = 0; i < runs; ++i) {
    const auto start = Clock::now();
    engine.run();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  return ms;
}

void print_profile(const runtime::Engine& engine, int runs) {
  auto rows = engine.profile();
  std::map<std::string, std::pair<double, std::int64_t>> by_op;
  double total = 0;
  for (const auto& r : rows) {
    by_op[r.op].first += r.total_ms;
    by_op[r.op].second += r.calls;
    total += r.total_ms;
  }
  std::vector<std::pair<std::string, std::pair<double, std::int64_t>>> ops(by_op.begin(),
                                                                           by_op.end());
  std::sort(ops.begin(), ops.end(),
            [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
  std::printf("\nprofile by operator (ms per run, share of the total):\n");
  for (const auto& [op, v] : ops) {
    std::printf("  %-20s %8.2f ms  %5.1f%%  (%lld calls)\n", op.c_str(), v.first / runs,
                total > 0 ? 100.0 * v.first / total : 0.0, static_cast<long long>(v.second));
  }
  std::sort(rows.begin(), rows.end(),
            [](const auto& a, const auto& b) { return a.total_ms > b.total_ms; });
  std::printf("\nslowest steps:\n");
  for (std::size_t i = 0; i < std::min<std::size_t>(rows.size(), 15); ++i) {
    std::printf("  %-14s %-44s %8.2f ms\n", rows[i].op.c_str(), rows[i].node.c_str(),
                rows[i].total_ms / runs);
  }
}

// One thread count: rounds alternate ours, the baseline and the peer, so a noisy neighbour on a
// shared machine hits all of them.
ThreadResult time_threads(const SweepArgs& args, int threads, runtime::Engine& engine,
                          runtime::Engine* baseline, std::optional<OrtPeer>& peer,
                          const std::string& peer_model) {
  engine.set_threads(threads);
  ThreadResult r;
  r.threads = threads;
  std::vector<double> all;
  r.ours_best_round_p50 = 1e300;
  std::vector<double> all_baseline;
  r.baseline_best_round_p50 = 1e300;
  if (baseline) baseline->set_threads(threads);
  for (int round = 0; round < args.rounds; ++round) {
    // --runs in all: the first runs % rounds rounds take one more.
    const int per_round =
        std::max(1, args.runs / args.rounds + (round < args.runs % args.rounds ? 1 : 0));
    for (int i = 0; i < args.warmup; ++i) engine.run();
    auto ms = time_runs(engine, per_round);
    r.ours_best_round_p50 = std::min(r.ours_best_round_p50, summarize(ms).p50);
    all.insert(all.end(), ms.begin(), ms.end());
    if (baseline) {
      for (int i = 0; i < args.warmup; ++i) baseline->run();
      auto base_ms = time_runs(*baseline, per_round);
      r.baseline_best_round_p50 = std::min(r.baseline_best_round_p50, summarize(base_ms).p50);
      all_baseline.insert(all_baseline.end(), base_ms.begin(), base_ms.end());
    }
    if (peer) {
      auto p = peer->bench(peer_model, threads, per_round, args.warmup, engine.input_width());
      if (!r.peer || p.p50_ms < r.peer->p50_ms) r.peer = p;
    }
  }
  r.ours = summarize(all);
  if (baseline) r.baseline = summarize(all_baseline);
  r.peak_rss_mb = peak_rss_mb();
  return r;
}

void print_json(const SweepArgs& args, const SweepRun& run,
                const std::vector<ThreadResult>& results) {
  nlohmann::json j = {{"model", args.model.model},
                      {"precision", runtime::precision_name(run.engine.precision())},
                      {"input", {run.engine.input_width(), run.engine.input_height()}},
                      {"load_ms", run.load_ms}};
  for (const auto& r : results) {
    nlohmann::json t = {{"threads", r.threads},        {"runs", r.ours.runs},
                        {"min_ms", r.ours.min},        {"p50_ms", r.ours.p50},
                        {"p90_ms", r.ours.p90},        {"p99_ms", r.ours.p99},
                        {"max_ms", r.ours.max},        {"mean_ms", r.ours.mean},
                        {"stddev_ms", r.ours.stddev},  {"best_round_p50_ms", r.ours_best_round_p50},
                        {"peak_rss_mb", r.peak_rss_mb}};
    if (r.baseline) {
      t["baseline"] = {{"model", args.baseline},
                       {"precision", runtime::precision_name(runtime::Precision::kFp32)},
                       {"min_ms", r.baseline->min},
                       {"p50_ms", r.baseline->p50},
                       {"p90_ms", r.baseline->p90},
                       {"best_round_p50_ms", r.baseline_best_round_p50}};
      t["ratio_baseline_p50"] = r.ours_best_round_p50 / r.baseline_best_round_p50;
    }
    if (r.peer) {
      t["peer"] = {{"name", r.peer->peer},     {"model", run.peer_model},
                   {"min_ms", r.peer->min_ms}, {"p50_ms", r.peer->p50_ms},
                   {"p90_ms", r.peer->p90_ms}, {"max_ms", r.peer->max_ms}};
      t["ratio_p50"] = r.ours_best_round_p50 / r.peer->p50_ms;
      t["ratio_min"] = r.ours.min / r.peer->min_ms;
    }
    j["results"].push_back(t);
  }
  std::printf("%s\n", j.dump(1).c_str());
}

void print_table(const SweepArgs& args, const SweepRun& run,
                 const std::vector<ThreadResult>& results) {
  std::printf("%s  %s  input %dx%d  load %.0f ms\n", args.model.model.c_str(),
              runtime::precision_name(run.engine.precision()), run.engine.input_width(),
              run.engine.input_height(), run.load_ms);
  std::printf("%7s %5s %8s %8s %8s %8s %8s %8s %7s %9s", "threads", "runs", "min", "p50", "p90",
              "p99", "mean", "stddev", "rss MB", "");
  if (run.baseline) std::printf(" %9s %9s", "base p50", "ours/base");
  if (run.peer) std::printf(" %9s %9s %10s", "peer p50", "peer min", "ours/peer");
  std::printf("\n");
  for (const auto& r : results) {
    std::printf("%7d %5zu %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f %7.1f %9s", r.threads, r.ours.runs,
                r.ours.min, r.ours.p50, r.ours.p90, r.ours.p99, r.ours.mean, r.ours.stddev,
                r.peak_rss_mb, "");
    if (r.baseline) {
      std::printf(" %9.2f %9.2f", r.baseline->p50,
                  r.ours_best_round_p50 / r.baseline_best_round_p50);
    }
    if (r.peer) {
      std::printf(" %9.2f %9.2f %10.2f", r.peer->p50_ms, r.peer->min_ms,
                  r.ours_best_round_p50 / r.peer->p50_ms);
    }
    std::printf("\n");
  }
  if (run.baseline) {
    std::printf(
        "ours/base = our best round's p50 / the best round's p50 of %s in FP32 (%d rounds, "
        "interleaved)\n",
        args.baseline.c_str(), args.rounds);
  }
  if (run.peer) {
    std::printf(
        "ours/peer = our best round's p50 / the peer's best round's p50 on %s (%d rounds, "
        "interleaved)\n",
        run.peer_model.c_str(), args.rounds);
  }
}

}  // namespace

int run_sweep(const SweepArgs& args) {
  runtime::EngineOptions options;
  options.precision = args.model.parsed_precision();
  options.threads = args.threads.front();
  options.imgsz = args.model.imgsz;
  options.profile = args.model.profile;
  options.log = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  std::optional<OrtPeer> peer;
  if (!args.peer.empty()) peer.emplace(args.peer);
  const std::string peer_model = args.peer_model.empty() ? args.model.model : args.peer_model;
  std::unique_ptr<runtime::Engine> baseline;
  if (!args.baseline.empty()) {
    runtime::EngineOptions fp32 = options;
    fp32.precision = runtime::Precision::kFp32;
    fp32.profile = false;
    baseline = runtime::Engine::load(args.baseline, fp32);
    print_lint_warnings(args.baseline, baseline->lint_findings());
    fill_test_pattern(*baseline);
  }

  const auto load_start = Clock::now();
  auto engine = runtime::Engine::load(args.model.model, options);
  const double load_ms =
      std::chrono::duration<double, std::milli>(Clock::now() - load_start).count();
  print_lint_warnings(args.model.model, engine->lint_findings());
  fill_test_pattern(*engine);

  std::vector<ThreadResult> results;
  for (int threads : args.threads) {
    results.push_back(time_threads(args, threads, *engine, baseline.get(), peer, peer_model));
  }

  const SweepRun run{*engine, load_ms, peer_model, baseline != nullptr, peer.has_value()};
  if (args.json) {
    print_json(args, run, results);
  } else {
    print_table(args, run, results);
  }
  if (args.model.profile) {
    int total_runs = 0;
    for (std::size_t i = 0; i < results.size(); ++i) {
      total_runs += static_cast<int>(results[i].ours.runs) + args.warmup * args.rounds;
    }
    print_profile(*engine, total_runs);
  }
  return kOk;
}

}  // namespace yolo::cli
