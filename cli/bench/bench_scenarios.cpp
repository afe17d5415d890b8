// SPDX-License-Identifier: Apache-2.0
#include "cli/bench/bench_scenarios.h"

#include <array>
#include <stdexcept>

namespace yolo::cli {

namespace {

std::string count_text(int n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

}  // namespace

const std::vector<Scenario>& all_scenarios() {
  static const std::vector<Scenario> all = {Scenario::kControlled, Scenario::kPractical,
                                            Scenario::kSingleStream, Scenario::kMultiStream,
                                            Scenario::kOffline};
  return all;
}

std::optional<Scenario> parse_scenario(std::string_view name) {
  for (Scenario s : all_scenarios()) {
    if (scenario_spec(s, 1).name == name) return s;
  }
  return std::nullopt;
}

ScenarioSpec scenario_spec(Scenario scenario, int cores) {
  if (cores < 1) throw std::invalid_argument("a scenario needs at least one core");
  ScenarioSpec s;
  s.scenario = scenario;
  const std::string all = count_text(cores, "thread");
  switch (scenario) {
    case Scenario::kControlled:
      s.name = "controlled";
      s.budget = {100, 0};
      s.headline = Headline::kMean;
      s.description =
          "1 engine on 1 thread, runs back to back: the model without thread effects "
          "(INT8-paradox study)";
      break;
    case Scenario::kPractical:
      s.name = "practical";
      s.threads = cores;
      s.budget = {100, 0};
      s.headline = Headline::kMean;
      s.description =
          "1 engine on " + all + " (every core), runs back to back (INT8-paradox study)";
      break;
    case Scenario::kSingleStream:
      s.name = "single-stream";
      s.threads = cores;
      s.budget = {1024, 60};
      s.headline = Headline::kP90;
      s.description = "1 engine on " + all +
                      ", one query of 1 frame after another, judged by "
                      "its 90th percentile (MLPerf; at least 1024 queries and 60 s)";
      break;
    case Scenario::kMultiStream:
      s.name = "multi-stream";
      s.engines = cores;
      s.frames_per_query = 8;
      s.budget = {662, 60};
      s.headline = Headline::kP99;
      s.description = count_text(cores, "engine") +
                      " of 1 thread share each query of 8 frames "
                      "(eight cameras), judged by the 99th percentile of the query latency "
                      "(MLPerf; at least 662 queries, and 60 s here where MLPerf asks 600 s)";
      break;
    case Scenario::kOffline:
      s.name = "offline";
      s.engines = cores;
      s.free_running = true;
      s.budget = {1, 60};
      s.headline = Headline::kThroughput;
      s.description = count_text(cores, "engine") +
                      " of 1 thread run frames back to back, "
                      "judged by throughput (MLPerf; at least 60 s, without its 24576-frame "
                      "minimum, which would take hours on a Pi)";
      break;
  }
  return s;
}

// The name of each headline, in the enum's order.
constexpr std::array<const char*, 4> kHeadlineNames{"mean", "p90", "p99", "throughput"};
static_assert(kHeadlineNames.size() == static_cast<std::size_t>(Headline::kThroughput) + 1);

const char* headline_name(Headline headline) {
  const auto i = static_cast<std::size_t>(headline);
  return i < kHeadlineNames.size() ? kHeadlineNames[i] : "";
}

}  // namespace yolo::cli
