// SPDX-License-Identifier: Apache-2.0
#include "cli/bench/bench_report.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "cli/common/csv_table.h"
#include "runtime/engine/precision.h"
#include "text/format.h"

namespace yolo::cli {

namespace {

// "45.0 -> 47.5", or "n/a" when the device has no such reading.
std::string start_end(const std::optional<double>& start, const std::optional<double>& end,
                      int decimals) {
  if (!start && !end) return "n/a";
  auto one = [&](const std::optional<double>& v) { return v ? text::fixed(*v, decimals) : "?"; };
  return one(start) + " -> " + one(end);
}

std::string optional_fixed(const std::optional<double>& value, int decimals) {
  return value ? text::fixed(*value, decimals) : "n/a";
}

std::string shape(const ScenarioSpec& spec) {
  std::string text = std::to_string(spec.engines) + " x " + std::to_string(spec.threads);
  if (spec.frames_per_query > 1) text += ", " + std::to_string(spec.frames_per_query) + "/query";
  return text;
}

std::string headline_label(const ScenarioSpec& spec) {
  return spec.headline == Headline::kThroughput ? "frames/s"
                                                : std::string(headline_name(spec.headline)) + " ms";
}

std::string results_table(const SuiteResult& suite) {
  std::ostringstream md;
  md << "| scenario | precision | engines x threads | queries | mean ms | stddev ms | CV % | p50 "
        "ms | p90 ms | p95 ms | p99 ms | IQR ms | frames/s | model MB | peak RSS MB | temp C | "
        "clock MHz | power W | mJ/frame |\n"
     << "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- "
        "| --- | --- | --- | --- |\n";
  for (const auto& r : suite.results) {
    const auto& l = r.latency;
    md << "| " << r.spec.name << " | " << r.precision << " | " << shape(r.spec) << " | " << l.runs
       << " | " << text::fixed(l.mean, 2) << " | " << text::fixed(l.stddev, 2) << " | "
       << text::fixed(100 * l.cv(), 1) << " | " << text::fixed(l.p50, 2) << " | "
       << text::fixed(l.p90, 2) << " | " << text::fixed(l.p95, 2) << " | " << text::fixed(l.p99, 2)
       << " | " << text::fixed(l.iqr(), 2) << " | " << text::fixed(r.throughput, 2) << " | "
       << text::fixed(static_cast<double>(r.file_bytes) / 1e6, 2) << " | "
       << text::fixed(r.peak_rss_mb, 1) << " | " << start_end(r.start.temp_c, r.end.temp_c, 1)
       << " | " << start_end(r.start.clock_mhz, r.end.clock_mhz, 0) << " | "
       << optional_fixed(r.power_w, 2) << " | " << optional_fixed(r.energy_per_frame_mj, 1)
       << " |\n";
  }
  return md.str();
}

std::string speedup_table(const std::vector<Speedup>& speedups) {
  std::ostringstream md;
  md << "| scenario | judged by | FP32 | INT8 | INT8 speedup |\n"
     << "| --- | --- | --- | --- | --- |\n";
  for (const auto& s : speedups) {
    md << "| " << s.spec.name << " | " << headline_label(s.spec) << " | " << text::fixed(s.fp32, 2)
       << " | " << text::fixed(s.int8, 2) << " | **" << text::fixed(s.int8_speedup, 2) << "x** |\n";
  }
  return md.str();
}

bool any_peer(const SuiteResult& suite) {
  for (const auto& r : suite.results) {
    if (r.peer) return true;
  }
  return false;
}

std::string peer_table(const SuiteResult& suite, const BenchContext& context) {
  std::ostringstream md;
  md << "| scenario | precision | threads | ours p50 ms | " << context.peer
     << " p50 ms | ours/peer |\n"
     << "| --- | --- | --- | --- | --- | --- |\n";
  for (const auto& r : suite.results) {
    if (!r.peer || !r.ratio_peer_p50) continue;
    md << "| " << r.spec.name << " | " << r.precision << " | " << r.spec.threads << " | "
       << text::fixed(r.best_round_p50_ms, 2) << " | " << text::fixed(r.peer->p50_ms, 2) << " | **"
       << text::fixed(*r.ratio_peer_p50, 2) << "** |\n";
  }
  return md.str();
}

nlohmann::json reading_json(const DeviceReading& r) {
  nlohmann::json j = nlohmann::json::object();
  if (r.temp_c) j["temp_c"] = text::rounded(*r.temp_c, 2);
  if (r.clock_mhz) j["clock_mhz"] = text::rounded(*r.clock_mhz, 1);
  if (r.throttled) j["throttled"] = *r.throttled;
  return j;
}

nlohmann::json result_json(const ScenarioResult& r) {
  const auto& l = r.latency;
  auto ms = [](double v) { return text::rounded(v, 3); };
  nlohmann::json j = {{"scenario", r.spec.name},
                      {"precision", r.precision},
                      {"engines", r.spec.engines},
                      {"threads", r.spec.threads},
                      {"frames_per_query", r.spec.frames_per_query},
                      {"judged_by", headline_name(r.spec.headline)},
                      {"rounds", r.rounds},
                      {"min_queries", r.budget.min_queries},
                      {"min_seconds", r.budget.min_seconds},
                      {"queries", l.runs},
                      {"frames", r.frames},
                      {"seconds", text::rounded(r.seconds, 3)},
                      {"latency_ms",
                       {{"mean", ms(l.mean)},
                        {"stddev", ms(l.stddev)},
                        {"cv", text::rounded(l.cv(), 4)},
                        {"min", ms(l.min)},
                        {"p25", ms(l.p25)},
                        {"p50", ms(l.p50)},
                        {"p75", ms(l.p75)},
                        {"p90", ms(l.p90)},
                        {"p95", ms(l.p95)},
                        {"p99", ms(l.p99)},
                        {"max", ms(l.max)},
                        {"iqr", ms(l.iqr())},
                        {"best_round_p50", ms(r.best_round_p50_ms)}}},
                      {"throughput_fps", text::rounded(r.throughput, 2)},
                      {"model", r.file.string()},
                      {"model_bytes", r.file_bytes},
                      {"load_ms", text::rounded(r.load_ms, 1)},
                      {"peak_rss_mb", text::rounded(r.peak_rss_mb, 1)},
                      {"device", {{"start", reading_json(r.start)}, {"end", reading_json(r.end)}}}};
  if (r.power_w) j["power_w"] = text::rounded(*r.power_w, 3);
  if (r.energy_per_frame_mj) j["energy_per_frame_mj"] = text::rounded(*r.energy_per_frame_mj, 3);
  if (r.peer) {
    j["peer"] = {{"name", r.peer->peer},     {"runs", r.peer->runs},
                 {"min_ms", r.peer->min_ms}, {"p50_ms", r.peer->p50_ms},
                 {"p90_ms", r.peer->p90_ms}, {"max_ms", r.peer->max_ms}};
  }
  if (r.ratio_peer_p50) j["ratio_peer_p50"] = text::rounded(*r.ratio_peer_p50, 3);
  return j;
}

std::string length_text(const BenchContext& context) {
  std::string text;
  if (context.queries) {
    text = "shortened by `--queries ";
    text += std::to_string(*context.queries);
    text += "`: every scenario ran exactly that many queries (frames, offline) per precision";
  } else if (context.duration_s) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%g", *context.duration_s);
    text = "shortened by `--duration ";
    text += seconds;
    text += "`: every scenario ran that many seconds per precision";
  } else {
    text = "the scenarios' own lengths (below)";
  }
  return text;
}

}  // namespace

std::string bench_tables_markdown(const SuiteResult& suite, const BenchContext& context) {
  std::string md = results_table(suite);
  const auto speedups = int8_speedups(suite.results);
  if (!speedups.empty()) md += "\n" + speedup_table(speedups);
  if (any_peer(suite)) md += "\n" + peer_table(suite, context);
  return md;
}

std::string bench_report_markdown(const SuiteResult& suite, const BenchContext& context) {
  std::ostringstream md;
  md << "# yolo-edge bench\n\n"
     << "Measured " << context.time << " on " << context.host << " (" << context.cpu << ", "
     << context.cores << " usable core" << (context.cores == 1 ? "" : "s") << "), yolo-edge "
     << context.version << ":\n\n    " << context.command << "\n\n";
  for (const auto& p : context.precisions) {
    md << "- " << p.name << ": `" << p.file.string() << "`";
    if (!context.peer.empty())
      md << " (" << context.peer << " runs `" << p.peer_file.string() << "`)";
    md << "\n";
  }
  md << "\nLength: " << length_text(context) << "; " << context.rounds
     << " round(s) per scenario alternating the precisions (A B, B A, ...), " << context.warmup
     << " untimed warm-up run(s) per engine before each.\n\n"
     << "## Results\n\nLatencies are per query (a query is 8 frames in multi-stream; per frame "
        "offline); frames/s is frames over the timed seconds. Temperature and clock: before the "
        "first round -> after the last. Power and mJ/frame: the preferred power source's energy "
        "over the timed runs (the whole board or package, idle share included) over their time "
        "and frames. Peak RSS: this process, with only this precision's engines loaded.\n\n"
     << results_table(suite);
  const auto speedups = int8_speedups(suite.results);
  if (!speedups.empty()) {
    md << "\n## INT8 against FP32\n\nINT8 speedup: FP32 / INT8 on the latency a scenario is "
          "judged by (INT8 / FP32 on throughput); above 1 INT8 is faster, below 1 it is "
          "slower.\n\n"
       << speedup_table(speedups);
  }
  if (any_peer(suite)) {
    md << "\n## Ours against ONNX Runtime\n\nours/peer: our best round's p50 over the peer's "
          "best round's p50, the peer timed after each of our rounds with as many runs. Only "
          "the scenarios with one engine and one frame per query: the peer runs one session.\n\n"
       << peer_table(suite, context);
  }
  md << "\n## Scenarios\n\n";
  std::vector<Scenario> seen;
  for (const auto& r : suite.results) {
    if (std::find(seen.begin(), seen.end(), r.spec.scenario) != seen.end()) continue;
    seen.push_back(r.spec.scenario);
    md << "- **" << r.spec.name << "**: " << r.spec.description << ".\n";
  }
  md << "\n## Sensors\n\n";
  for (const auto& found : context.sensors.found) md << "- found: " << found << "\n";
  for (const auto& missing : context.sensors.missing) md << "- missing: " << missing << "\n";
  if (!suite.peak_rss_per_round) {
    md << "- peak RSS: /proc/self/clear_refs refused a reset, so each peak includes every "
          "earlier round\n";
  }
  if (!context.notes.empty()) {
    md << "\n## Not measured\n\n";
    for (const auto& note : context.notes) md << "- " << note << "\n";
  }
  return md.str();
}

nlohmann::json bench_results_json(const SuiteResult& suite, const BenchContext& context) {
  nlohmann::json j = {{"command", context.command},
                      {"time", context.time},
                      {"host", context.host},
                      {"cpu", context.cpu},
                      {"cores", context.cores},
                      {"version", context.version},
                      {"rounds", context.rounds},
                      {"warmup", context.warmup},
                      {"sensors", telemetry::to_json(context.sensors)},
                      {"peak_rss_per_round", suite.peak_rss_per_round},
                      {"notes", context.notes}};
  if (context.queries) j["queries"] = *context.queries;
  if (context.duration_s) j["duration_s"] = *context.duration_s;
  if (!context.peer.empty()) j["peer"] = context.peer;
  j["precisions"] = nlohmann::json::array();
  for (const auto& p : context.precisions) {
    nlohmann::json item = {{"name", p.name}, {"file", p.file.string()}};
    if (!context.peer.empty()) item["peer_file"] = p.peer_file.string();
    j["precisions"].push_back(item);
  }
  j["results"] = nlohmann::json::array();
  for (const auto& r : suite.results) j["results"].push_back(result_json(r));
  j["int8_speedup"] = nlohmann::json::array();
  for (const auto& s : int8_speedups(suite.results)) {
    j["int8_speedup"].push_back(
        {{"scenario", s.spec.name},
         {"judged_by", headline_name(s.spec.headline)},
         {runtime::precision_name(runtime::Precision::kFp32), text::rounded(s.fp32, 3)},
         {runtime::precision_name(runtime::Precision::kInt8), text::rounded(s.int8, 3)},
         {"speedup", text::rounded(s.int8_speedup, 3)}});
  }
  return j;
}

void write_bench_csv(std::ostream& out, const SuiteResult& suite) {
  std::vector<CsvRow> rows;
  for (const auto& r : suite.results) rows.push_back(flatten(result_json(r)));
  write_csv(out, rows,
            {"scenario",         "precision",          "engines",           "threads",
             "frames_per_query", "judged_by",          "queries",           "frames",
             "seconds",          "latency_ms.mean",    "latency_ms.stddev", "latency_ms.cv",
             "latency_ms.p50",   "latency_ms.p90",     "latency_ms.p95",    "latency_ms.p99",
             "latency_ms.iqr",   "throughput_fps",     "model_bytes",       "peak_rss_mb",
             "power_w",          "energy_per_frame_mj"});
}

}  // namespace yolo::cli
