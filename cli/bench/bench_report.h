// SPDX-License-Identifier: Apache-2.0
#pragma once

// What `yolo-edge bench`'s scenario run writes: report.md (the tables and how they were measured),
// results.json (everything), results.csv (one row per precision and scenario).
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/bench/bench_suite.h"
#include "telemetry/inventory.h"

namespace yolo::cli {

// Where and how the run happened, for the report.
struct BenchContext {
  // The command line as given.
  std::string command;
  // When the run started (UTC, ISO 8601), on which machine.
  std::string time;
  std::string host;
  std::string cpu;
  int cores = 1;
  std::string version;
  telemetry::Inventory sensors;
  // The options that shape the run.
  std::optional<std::size_t> queries;
  std::optional<double> duration_s;
  int rounds = 0;
  int warmup = 0;
  std::vector<PrecisionModel> precisions;
  // "onnxruntime-node 1.30.0" when the peer ran.
  std::string peer;
  // What the run left out and why, one sentence each (e.g. INT8 without an INT8 file).
  std::vector<std::string> notes;
};

// The tables `bench` prints: results per scenario and precision, INT8 speedup per scenario, and
// ours/peer when the peer ran.
std::string bench_tables_markdown(const SuiteResult& suite, const BenchContext& context);
// report.md: the tables, the machine, the command, what each scenario runs, and what is missing.
std::string bench_report_markdown(const SuiteResult& suite, const BenchContext& context);
// results.json.
nlohmann::json bench_results_json(const SuiteResult& suite, const BenchContext& context);
// results.csv: one row per result, its JSON flattened (latency_ms.p90, device.start.temp_c, ...).
void write_bench_csv(std::ostream& out, const SuiteResult& suite);

}  // namespace yolo::cli
