// SPDX-License-Identifier: Apache-2.0
#pragma once

// The scenarios `yolo-edge bench` times: the two of the INT8-paradox study (controlled: one
// thread; practical: every core) and the three MLPerf edge scenarios (single-stream, multi-stream,
// offline), each with its default length and the statistic it is judged by.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/bench/bench_measure.h"

namespace yolo::cli {

enum class Scenario { kControlled, kPractical, kSingleStream, kMultiStream, kOffline };

// The statistic a scenario is judged by: a latency (lower is better) or the throughput.
enum class Headline { kMean, kP90, kP99, kThroughput };

struct ScenarioSpec {
  Scenario scenario = Scenario::kControlled;
  // "controlled", "practical", "single-stream", "multi-stream", "offline".
  std::string name;
  // Engines running side by side (one per core for multi-stream and offline) and the threads of
  // each.
  int engines = 1;
  int threads = 1;
  // Frames per query: 8 in multi-stream (eight cameras on one device), else 1.
  int frames_per_query = 1;
  // Offline: every engine runs frames back to back (measure_throughput); the others issue
  // queries one after another (measure_queries).
  bool free_running = false;
  // The default length: the MLPerf minimums, the study's run count.
  Budget budget;
  Headline headline = Headline::kMean;
  // One line for the report: what runs and why.
  std::string description;
};

// Every scenario, in the order a run takes them.
const std::vector<Scenario>& all_scenarios();
// The scenario named `name`, or nullopt.
std::optional<Scenario> parse_scenario(std::string_view name);
// The scenario on a machine with `cores` usable cores, at its default length.
ScenarioSpec scenario_spec(Scenario scenario, int cores);

// "mean", "p90", "p99", "throughput".
const char* headline_name(Headline headline);

}  // namespace yolo::cli
