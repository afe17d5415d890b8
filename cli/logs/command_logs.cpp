// SPDX-License-Identifier: Apache-2.0
// yolo-edge logs export: the daemon's field logs (JSON lines) as CSV, one row per interval line
// or, with --events, per event line.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/common/csv_table.h"
#include "cli/common/field_log_files.h"
#include "fieldlog/keys.h"
#include "text/format.h"

namespace yolo::cli {

namespace {

struct ExportArgs {
  bool csv = false;
  bool events = false;
  std::string out;
  std::vector<std::string> paths;
};

// The columns a reader looks for first; the rest follow sorted (docs/field-log.md).
namespace key = fieldlog::key;
const std::vector<std::string> kIntervalColumns = {key::kTime,
                                                   key::kDurationS,
                                                   key::kHost,
                                                   key::kModel,
                                                   key::kPrecision,
                                                   std::string(key::kInput) + ".0",
                                                   std::string(key::kInput) + ".1",
                                                   key::kThreads,
                                                   key::kFrames,
                                                   key::kFps,
                                                   key::kDropped};
const std::vector<std::string> kEventColumns = {key::kTime, key::kEvent};

int run_export(const ExportArgs& args) {
  const auto files = field_log_files(args.paths);
  const std::string wanted = args.events ? fieldlog::kEventLine : fieldlog::kIntervalLine;
  std::vector<CsvRow> rows;
  std::size_t other = 0;
  const auto warn = [](const std::string& warning) {
    std::fprintf(stderr, "yolo-edge logs: %s, skipped\n", warning.c_str());
  };
  for (const auto& line : read_field_log_lines(files, warn)) {
    if (line[key::kType] != wanted) {
      ++other;
      continue;
    }
    CsvRow row = flatten(line);
    row.erase(key::kType);
    rows.push_back(std::move(row));
  }
  if (rows.empty()) {
    std::string hint;
    if (other > 0) {
      hint = args.events ? " (only interval lines: leave out --events)"
                         : " (only event lines: add --events)";
    }
    std::fprintf(stderr, "yolo-edge logs export: no %s lines in %s%s\n", wanted.c_str(),
                 text::joined(args.paths).c_str(), hint.c_str());
    return kBadInput;
  }
  const auto& first = args.events ? kEventColumns : kIntervalColumns;
  if (args.out.empty()) {
    write_csv(std::cout, rows, first);
    std::cout.flush();
    return std::cout ? kOk : kFailed;
  }
  std::ofstream out(args.out, std::ios::binary | std::ios::trunc);
  if (!out) {
    throw std::runtime_error("cannot write " + args.out + ": " + std::strerror(errno));
  }
  write_csv(out, rows, first);
  out.close();
  if (!out) throw std::runtime_error("cannot write " + args.out + ": " + std::strerror(errno));
  return kOk;
}

}  // namespace

void register_logs(CLI::App& app) {
  auto args = std::make_shared<ExportArgs>();
  auto* logs = app.add_subcommand("logs", "Read the daemon's field logs");
  logs->require_subcommand(1);
  auto* exp = logs->add_subcommand(
      "export",
      "Flatten field-log lines into one CSV table: one row per interval line (or event line "
      "with --events), nested keys joined with '.' (latency_ms.inference.p50)");
  exp->add_flag("--csv", args->csv, "Write CSV (the one format so far)")->required();
  exp->add_flag("--events", args->events, "Export the event lines instead of the interval lines");
  exp->add_option("--out", args->out, "Write the table to this file instead of standard output");
  exp->add_option("LOG_OR_DIR", args->paths,
                  "Field-log files, read in the order given, or folders (logging.dir), whose "
                  "current and rotated files are read oldest first")
      ->required();
  add_command(app, logs, [args] { return run_export(*args); });
}

}  // namespace yolo::cli
