// SPDX-License-Identifier: Apache-2.0
// yolo-edge report: the daemon's field logs as report.md and PNG plots (FPS, the INT8 checks'
// agreement, latency, threads, temperature, clock, throttling, power and energy over time, and a
// table comparing precisions).
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "cli/common/field_log_files.h"
#include "cli/common/text_file.h"
#include "cli/report/field_report.h"
#include "cli/report/field_report_script.h"

extern char** environ;

namespace yolo::cli {

namespace {

namespace fs = std::filesystem;

// Debian's interpreter, the one python3-matplotlib installs into (a python3 earlier on PATH, a
// virtualenv or pyenv, may lack it).
constexpr const char* kPython = "/usr/bin/python3";
// The script's exit status when matplotlib is missing.
constexpr int kNoMatplotlib = 3;

struct ReportArgs {
  std::vector<std::string> paths;
  std::string out;
};

// The plots the script may write, with their captions, in the order report.md shows them.
const std::vector<std::pair<std::string, std::string>> kPlots = {
    {"performance.png", "FPS, inference latency and threads over time, per precision"},
    {"device.png", "Temperature, clock and throttling over time"},
    {"power.png", "Power and energy per frame over time, per precision"}};
// performance.png's caption when the logs have the live INT8 checks' agreement.
constexpr const char* kPerformanceWithAgreement =
    "FPS, the INT8 checks' agreement with FP32, inference latency and threads over time, per "
    "precision";

// Runs the plot script on `timeline`; returns why no plots were made, or "" when it succeeded.
std::string run_plot_script(const fs::path& timeline, const fs::path& out) {
  if (access(kPython, X_OK) != 0) {
    return std::string(kPython) +
           " is missing; install Debian's python3 and python3-matplotlib "
           "(sudo apt install python3-matplotlib) and run the report again";
  }
  const std::string script(field_report_script());
  std::vector<std::string> args = {kPython, "-c", script, timeline.string(), out.string()};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (const int e = posix_spawn(&pid, kPython, nullptr, nullptr, argv.data(), environ); e != 0) {
    return std::string("cannot start ") + kPython + ": " + std::strerror(e);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      return std::string("cannot wait for the plot script: ") + std::strerror(errno);
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  if (WIFEXITED(status) && WEXITSTATUS(status) == kNoMatplotlib) {
    return "python3-matplotlib is not installed (sudo apt install python3-matplotlib); run the "
           "report again";
  }
  return "the plot script (scripts/field-report.py) failed with status " +
         std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + "; its messages are above";
}

int run_report(const ReportArgs& args) {
  const auto files = field_log_files(args.paths);
  std::vector<std::string> skipped;
  const auto lines = read_field_log_lines(files, [&](const std::string& warning) {
    std::fprintf(stderr, "yolo-edge report: %s, skipped\n", warning.c_str());
    skipped.push_back(warning);
  });
  FieldReport report;
  try {
    report = build_field_report(lines, skipped);
  } catch (const std::invalid_argument& e) {
    std::string sources;
    for (const auto& f : files) sources += (sources.empty() ? "" : ", ") + f.string();
    std::fprintf(stderr,
                 "yolo-edge report: %s in %s (the daemon writes one every "
                 "logging.interval_s)\n",
                 e.what(), sources.c_str());
    return kBadInput;
  }

  const fs::path out(args.out);
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) throw std::runtime_error("cannot create --out " + args.out + ": " + ec.message());
  // Plots of an earlier report in the same folder must not pass for this one's.
  for (const auto& [file, caption] : kPlots) fs::remove(out / file, ec);
  const fs::path timeline = out / "timeline.json";
  write_text_file(timeline, report.timeline.dump() + "\n");

  const std::string failure = run_plot_script(timeline, out);
  std::vector<std::pair<std::string, std::string>> plots;
  const bool agreement =
      std::any_of(report.precisions.begin(), report.precisions.end(),
                  [](const PrecisionSummary& p) { return p.agreement_min.has_value(); });
  for (auto plot : kPlots) {
    if (!fs::exists(out / plot.first, ec)) continue;
    if (plot.first == "performance.png" && agreement) plot.second = kPerformanceWithAgreement;
    plots.push_back(std::move(plot));
  }
  if (!failure.empty()) report.missing.push_back("Plots not made: " + failure + ".");
  std::vector<std::string> sources;
  for (const auto& f : files) sources.push_back("`" + f.string() + "`");
  write_text_file(out / "report.md", field_report_markdown(report, plots, sources));

  std::printf("Wrote %s/report.md", args.out.c_str());
  for (const auto& [file, caption] : plots) std::printf(", %s", file.c_str());
  std::printf(" and timeline.json\n");
  if (!failure.empty()) {
    std::fprintf(stderr, "yolo-edge report: plots not made: %s\n", failure.c_str());
    return kFailed;
  }
  return kOk;
}

}  // namespace

void register_report(CLI::App& app) {
  auto args = std::make_shared<ReportArgs>();
  auto* sub = app.add_subcommand(
      "report",
      "Turn the daemon's field logs into report.md and PNG plots: FPS and latency per precision, "
      "the INT8 checks' agreement with FP32, "
      "temperature, clock, throttling, power and energy per frame over time, thread decisions, "
      "and a table comparing precisions");
  sub->add_option("LOG_OR_DIR", args->paths,
                  "Field-log files, or folders (logging.dir), whose current and rotated files "
                  "are read oldest first")
      ->required();
  sub->add_option("--out", args->out,
                  "Folder for report.md, the plots and timeline.json (the plotted data)")
      ->required();
  sub->footer(
      "The plots are drawn by Debian's python3-matplotlib (/usr/bin/python3); without it "
      "report.md is still written, says so, and the exit status is 1.");
  add_command(app, sub, [args] { return run_report(*args); });
}

}  // namespace yolo::cli
