// SPDX-License-Identifier: Apache-2.0
// yolo-edge bench: latency of a model per thread count (the thread sweep), or the scenarios of
// the INT8-paradox study and MLPerf edge per precision; optionally beside ONNX Runtime.
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/bench/bench_choose.h"
#include "cli/bench/bench_measure.h"
#include "cli/bench/bench_report.h"
#include "cli/bench/bench_scenarios.h"
#include "cli/bench/bench_suite.h"
#include "cli/bench/bench_sweep.h"
#include "cli/commands.h"
#include "cli/bench/device_monitor.h"
#include "cli/common/frame_sources.h"
#include "cli/bench/machine.h"
#include "cli/common/model_options.h"
#include "cli/bench/ort_peer.h"
#include "cli/common/progress.h"
#include "cli/common/text_file.h"
#include "config/config.h"
#include "detector/precision_trial.h"
#include "runtime/engine/engine.h"
#include "text/format.h"

namespace yolo::cli {

namespace {

using Clock = std::chrono::steady_clock;

// The thread sweep's options (cli/bench_sweep.h), the scenarios' and --choose's.
struct BenchArgs : SweepArgs {
  // The scenarios' options.
  std::vector<std::string> scenarios;
  std::string int8;
  double duration_s = 0;
  std::size_t queries = 0;
  std::string out;
  std::string sysfs_root = "/sys";
  // --choose's options.
  bool choose = false;
  std::string images;
  std::string video;
  int frames = 32;
  double min_map50 = config::Config{}.model.auto_min_map50;
};

// The options given on the command line that decide what bench does: the thread sweep's own,
// the scenarios' own, and those both take.
struct GivenOptions {
  std::vector<const CLI::Option*> sweep;
  std::vector<const CLI::Option*> scenarios;
  const CLI::Option* precision = nullptr;
  CLI::Option* sweep_threads = nullptr;
  CLI::Option* duration = nullptr;
  CLI::Option* queries = nullptr;
};

std::vector<std::string> names(const std::vector<const CLI::Option*>& options) {
  std::vector<std::string> given;
  for (const auto* o : options) {
    if (o->count() > 0) given.push_back(o->get_name());
  }
  return given;
}

// Whether the options ask for the scenarios rather than the thread sweep; throws
// std::invalid_argument when they mix the two.
bool wants_scenarios(const BenchArgs& args, const GivenOptions& given) {
  const auto scenario_options = names(given.scenarios);
  const bool scenarios = !scenario_options.empty() || args.model.precisions.size() > 1;
  const auto sweep_options = names(given.sweep);
  if (scenarios && !sweep_options.empty()) {
    std::string message = text::joined(sweep_options);
    message += sweep_options.size() == 1 ? " is" : " are";
    message += " for the thread sweep and ";
    message += scenario_options.empty() ? std::string("several precisions")
                                        : text::joined(scenario_options);
    message +=
        " for the scenarios, which choose their own threads (1 for controlled, every core "
        "for the others) and lengths (--queries or --duration); leave out one or the other";
    throw std::invalid_argument(message);
  }
  return scenarios;
}

// The INT8 file that runs: --int8, else the FP32 model's sibling when there is one, else the
// model itself (a QDQ file).
std::filesystem::path int8_file(const BenchArgs& args) {
  if (!args.int8.empty()) return args.int8;
  const auto sibling = runtime::int8_sibling(args.model.model);
  std::error_code ec;
  return std::filesystem::is_regular_file(sibling, ec) ? sibling
                                                       : std::filesystem::path(args.model.model);
}

std::vector<PrecisionModel> precisions_to_run(const BenchArgs& args, bool precision_given,
                                              std::vector<std::string>& notes) {
  std::vector<std::string> asked = args.model.precisions;
  if (!precision_given) {
    std::error_code ec;
    const auto sibling = runtime::int8_sibling(args.model.model);
    if (args.int8.empty() &&
        runtime::read_model_file(args.model.model).precision == runtime::Precision::kInt8) {
      // A static INT8 file is what it is: it runs int8, and there is no FP32 file to time.
      asked = {runtime::precision_name(runtime::Precision::kInt8)};
    } else if (!args.int8.empty() || std::filesystem::is_regular_file(sibling, ec)) {
      asked = precision_choices();
    } else {
      notes.push_back("INT8: not timed, there is no INT8 file beside " + args.model.model + " (" +
                      sibling.string() +
                      "); give --int8 FILE, or make one with "
                      "`yolo-edge quantize --model " +
                      args.model.model + " --calib VIDEO_OR_FOLDER --out " + sibling.string() +
                      "`");
      asked = {runtime::precision_name(runtime::Precision::kFp32)};
    }
  }
  std::vector<PrecisionModel> precisions;
  for (const auto& name : asked) {
    if (std::any_of(precisions.begin(), precisions.end(),
                    [&](const auto& p) { return p.name == name; })) {
      continue;
    }
    PrecisionModel p;
    p.name = name;
    p.precision = precision_option(name);
    if (p.precision == runtime::Precision::kInt8) {
      p.load = args.int8.empty() ? args.model.model : args.int8;
      p.file = int8_file(args);
      p.peer_file = args.peer_model.empty() ? p.file : std::filesystem::path(args.peer_model);
    } else {
      p.load = p.file = p.peer_file = args.model.model;
    }
    precisions.push_back(std::move(p));
  }
  return precisions;
}

std::vector<Scenario> scenarios_to_run(const BenchArgs& args) {
  if (args.scenarios.empty()) return all_scenarios();
  std::vector<Scenario> chosen;
  for (const auto& name : args.scenarios) {
    const auto s = parse_scenario(name);
    if (s && std::find(chosen.begin(), chosen.end(), *s) == chosen.end()) chosen.push_back(*s);
  }
  return chosen;
}

int run_scenarios(const BenchArgs& args, const GivenOptions& given) {
  BenchContext context;
  context.precisions = precisions_to_run(args, given.precision->count() > 0, context.notes);
  const std::vector<Scenario> scenarios = scenarios_to_run(args);
  if (!args.out.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(args.out, ec);
    if (ec) throw std::runtime_error("cannot create --out " + args.out + ": " + ec.message());
  }
  std::optional<OrtPeer> peer;
  if (!args.peer.empty()) peer.emplace(args.peer);

  SuiteOptions options;
  options.precisions = context.precisions;
  options.scenarios = scenarios;
  if (given.queries->count() > 0) options.queries = args.queries;
  if (given.duration->count() > 0) options.duration_s = args.duration_s;
  options.rounds = args.rounds;
  options.warmup = args.warmup;
  options.imgsz = args.model.imgsz;
  options.cores = usable_cores();
  options.peer = peer ? &*peer : nullptr;

  context.command = own_command_line();
  context.time = utc_now_text();
  context.host = host_name();
  context.cpu = machine_name();
  context.cores = options.cores;
  context.version = YOLO_EDGE_VERSION;
  context.queries = options.queries;
  context.duration_s = options.duration_s;
  context.rounds = args.rounds;
  context.warmup = args.warmup;
  if (peer && std::any_of(scenarios.begin(), scenarios.end(), [](Scenario s) {
        return s == Scenario::kMultiStream || s == Scenario::kOffline;
      })) {
    context.notes.push_back(
        "ONNX Runtime: not timed in multi-stream and offline, which run several engines side by "
        "side; the peer runs one session");
  }

  DeviceMonitor device(args.sysfs_root);
  context.sensors = device.inventory();
  Progress progress(stderr, isatty(STDERR_FILENO) != 0);
  SuiteProgress hooks;
  hooks.begin = [&](const std::string& label, const char* unit, const Budget& budget) {
    progress.begin(label, unit, budget.min_queries, budget.min_seconds);
  };
  hooks.update = [&](std::size_t done, double seconds) { progress.update(done, seconds); };
  hooks.end = [&](const std::string& summary) { progress.end(summary); };
  const SuiteResult suite = run_suite(options, device, hooks);
  for (const auto& r : suite.results) {
    if (r.peer) {
      context.peer = r.peer->peer;
      break;
    }
  }

  const auto json = bench_results_json(suite, context);
  if (!args.out.empty()) {
    const std::filesystem::path out(args.out);
    write_text_file(out / "report.md", bench_report_markdown(suite, context));
    write_text_file(out / "results.json", json.dump(1) + "\n");
    std::ostringstream csv;
    write_bench_csv(csv, suite);
    write_text_file(out / "results.csv", csv.str());
  }
  if (args.json) {
    std::printf("%s\n", json.dump(1).c_str());
  } else {
    std::printf("%s", bench_tables_markdown(suite, context).c_str());
    for (const auto& note : context.notes) std::printf("\nNot measured: %s\n", note.c_str());
    if (!args.out.empty()) {
      std::printf("\nWrote %s/report.md, results.json and results.csv\n", args.out.c_str());
    }
  }
  return kOk;
}

// --choose: FP32 against INT8 on the user's frames, decided as the daemon's precision: auto does.
int run_choose_command(const BenchArgs& args, const GivenOptions& given) {
  std::vector<std::string> others = names(given.scenarios);
  std::erase(others, "--int8");
  for (const auto& name : names(given.sweep)) {
    if (name != "--threads") others.push_back(name);
  }
  if (given.precision->count() > 0) others.push_back("--precision");
  if (!others.empty()) {
    throw std::invalid_argument(
        text::joined(others) + (others.size() == 1 ? " is" : " are") +
        " not for --choose, which times FP32 and INT8 on your frames at the thread counts the "
        "daemon tries (or --threads); leave " +
        (others.size() == 1 ? "it" : "them") + " out");
  }
  if (args.images.empty() && args.video.empty()) {
    throw std::invalid_argument(
        "--choose needs frames like the camera's: --images DIR (e.g. the daemon's own, "
        "/var/lib/yolo-edge/calibration) or --video FILE");
  }
  ChooseOptions options;
  options.fp32 = args.model.model;
  options.int8 = int8_file(args);
  if (options.int8 == options.fp32) {
    throw std::invalid_argument("--choose needs an INT8 file: give --int8 FILE, or make " +
                                runtime::int8_sibling(args.model.model).string() +
                                " with `yolo-edge quantize --model " + args.model.model +
                                " --calib VIDEO_OR_FOLDER`");
  }
  options.imgsz = args.model.imgsz;
  options.min_map50 = args.min_map50;
  options.thread_counts = given.sweep_threads->count() > 0
                              ? args.threads
                              : detector::thread_counts_to_try(usable_cores());

  std::vector<cv::Mat> frames;
  std::string source;
  vision::Frame frame;
  for (auto& s : open_frames(args.images, args.video)) {
    source += (source.empty() ? "" : " + ") + s->describe();
    while (static_cast<int>(frames.size()) < args.frames && s->read(frame)) {
      frames.push_back(frame.bgr.clone());
    }
  }
  if (frames.empty()) throw std::runtime_error(source + ": gave no frames");

  Progress progress(stderr, isatty(STDERR_FILENO) != 0);
  bool begun = false;
  const auto start = Clock::now();
  const ChooseResult result = run_choose(options, frames, [&](int done, int total) {
    if (!begun) progress.begin("FP32 vs INT8", "frames", static_cast<std::size_t>(total), 0);
    begun = true;
    progress.update(static_cast<std::size_t>(done),
                    std::chrono::duration<double>(Clock::now() - start).count());
  });
  progress.end("measured " + std::to_string(result.choice.frames) + " frame(s)");
  if (args.json) {
    std::printf("%s\n", choose_json(options, result, frames.size(), source).dump(1).c_str());
  } else {
    std::printf("%s", choose_text(options, result, frames.size(), source).c_str());
  }
  return kOk;
}

int run_bench(BenchArgs& args, const GivenOptions& given) {
  if (args.model.imgsz.mode == runtime::InputSize::Mode::kAuto) {
    throw std::invalid_argument(
        "--imgsz auto takes the aspect of a source, and bench times a test pattern: give the "
        "size auto would pick for your camera, e.g. --imgsz 384,640 for 16:9 at 640");
  }
  if (args.choose) return run_choose_command(args, given);
  if (wants_scenarios(args, given)) return run_scenarios(args, given);
  if (!args.model.precisions.empty()) args.model.precision = args.model.precisions.front();
  return run_sweep(args);
}

}  // namespace

void register_bench(CLI::App& app) {
  auto args = std::make_shared<BenchArgs>();
  auto given = std::make_shared<GivenOptions>();
  auto* sub = app.add_subcommand(
      "bench",
      "Time a model: per thread count (the thread sweep), or per precision in the scenarios of "
      "the INT8-paradox study and MLPerf edge (--scenario, --out, --int8, --queries, "
      "--duration); ONNX Runtime beside it with --peer");
  sub->footer(
      "Scenarios (each per precision, in --rounds rounds alternating the precisions):\n"
      "  controlled     1 engine, 1 thread; 100 runs; judged by the mean\n"
      "  practical      1 engine, every core; 100 runs; judged by the mean\n"
      "  single-stream  1 engine, every core, queries of 1 frame; at least 1024 queries and 60 s "
      "(MLPerf); judged by p90\n"
      "  multi-stream   one 1-thread engine per core share queries of 8 frames; at least 662 "
      "queries and 60 s; judged by p99\n"
      "  offline        one 1-thread engine per core, frames back to back; at least 60 s; "
      "judged by throughput\n"
      "--queries N or --duration S replaces those lengths for every scenario. Without any "
      "scenario option bench runs the thread sweep, as before.");
  args->model.add_to(*sub, true);
  given->precision = sub->get_option("--precision");
  given->sweep.push_back(sub->get_option("--profile"));
  given->sweep_threads = sub->add_option("--threads,-t", args->threads,
                                         "Thread sweep: thread counts to time, e.g. 1,2 (--choose: "
                                         "instead of the counts the daemon tries)")
                             ->delimiter(',')
                             ->check(CLI::Range(1, 256))
                             ->capture_default_str();
  given->sweep.push_back(given->sweep_threads);
  given->sweep.push_back(
      sub->add_option("--runs", args->runs, "Thread sweep: timed runs per thread count")
          ->check(CLI::Range(1, 100000))
          ->capture_default_str());
  sub->add_option("--warmup", args->warmup, "Untimed runs (per engine) before each round")
      ->check(CLI::Range(0, 10000))
      ->capture_default_str();
  sub->add_option("--rounds", args->rounds,
                  "Rounds per thread count or scenario, alternating the precisions and the peer")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  auto* peer = sub->add_option(
      "--peer", args->peer,
      "Path of ort_peer.js (../shared/bench/setup.sh DIR prints it): time ONNX Runtime "
      "on the same model in the same run");
  sub->add_option("--peer-model", args->peer_model,
                  "The file ONNX Runtime runs instead of --model (scenarios: instead of the INT8 "
                  "file), e.g. the dynamic-INT8 export beside our static INT8 model")
      ->check(CLI::ExistingFile)
      ->needs(peer);
  given->sweep.push_back(
      sub->add_option("--baseline", args->baseline,
                      "Thread sweep: also time this model in FP32 with our engine, interleaved, "
                      "and print ours/base, e.g. the FP32 file an INT8 model was made from")
          ->check(CLI::ExistingFile));
  sub->add_flag("--json", args->json, "Print the results as one JSON object");
  std::vector<std::string> scenario_names;
  for (Scenario s : all_scenarios()) scenario_names.push_back(scenario_spec(s, 1).name);
  given->scenarios.push_back(
      sub->add_option("--scenario", args->scenarios,
                      "Scenarios to run, e.g. controlled,single-stream (default: all five)")
          ->delimiter(',')
          ->check(CLI::IsMember(scenario_names)));
  given->scenarios.push_back(
      sub->add_option("--int8", args->int8,
                      "The INT8 (QDQ) file of --model (default: its sibling MODEL.int8.onnx, "
                      "timed beside FP32 when it exists)")
          ->check(CLI::ExistingFile));
  given->duration = sub->add_option("--duration", args->duration_s,
                                    "Seconds each scenario runs per precision, instead of its own "
                                    "length")
                        ->check(CLI::Range(0.1, 86400.0));
  given->queries = sub->add_option("--queries", args->queries,
                                   "Queries each scenario runs per precision (frames, offline), "
                                   "instead of its own length")
                       ->check(CLI::Range(1, 10000000))
                       ->excludes(given->duration);
  given->duration->excludes(given->queries);
  given->scenarios.push_back(given->duration);
  given->scenarios.push_back(given->queries);
  given->scenarios.push_back(sub->add_option(
      "--out", args->out, "Write report.md, results.json and results.csv in this folder"));
  given->scenarios.push_back(sub->add_option(
      "--sysfs-root", args->sysfs_root,
      "Read temperature, clock and power sensors under this folder instead of /sys (tests)"));
  auto* choose = sub->add_flag(
      "--choose", args->choose,
      "Decide FP32 or INT8 as the daemon's model.precision: auto does: both timed side by side on "
      "your frames (--images, --video) at the thread counts the daemon tries; INT8 only where "
      "it is faster and its mAP50 against FP32 reaches --min-map50");
  sub->add_option("--images", args->images,
                  "--choose: a folder of frames like the camera's (or one image)")
      ->needs(choose);
  sub->add_option("--video", args->video, "--choose: a video, stream or camera to take frames from")
      ->needs(choose);
  sub->add_option("--frames", args->frames, "--choose: most frames read from --images and --video")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str()
      ->needs(choose);
  sub->add_option("--min-map50", args->min_map50,
                  "--choose: the agreement INT8 needs (model.auto_min_map50 in the daemon)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str()
      ->needs(choose);
  add_command(app, sub, [args, given] { return run_bench(*args, *given); });
}

}  // namespace yolo::cli
