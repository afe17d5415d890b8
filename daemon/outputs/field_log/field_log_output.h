// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include "daemon/core/queued_output.h"
#include "daemon/outputs/field_log/interval_stats.h"
#include "daemon/outputs/field_log/rotating_file.h"

namespace yolo::daemon {

// How the field log runs. configure() fills the file and interval from `logging:`; the rest are
// fixed bounds (tests shorten the interval and retries). Host, queue and stop settings are taken
// when the thread starts.
struct FieldLogOptions {
  RotationPolicy file;
  // Length of one interval line.
  std::chrono::milliseconds interval{10'000};
  // Lines held while the disk refuses them; beyond this the oldest are dropped and counted.
  std::size_t max_held_lines = 4096;
  // Results, samples and events waiting for the log's thread; beyond this the oldest are
  // dropped (and counted in the next line's "dropped"). Taken at construction.
  std::size_t queue_capacity = 1024;
  // Write attempts stop() makes on a failing disk, and the pause between them, before it gives
  // up the held lines: stop() must return within the daemon's 5 s.
  int stop_attempts = 3;
  std::chrono::milliseconds stop_retry_pause{200};
  // The "host" of every line; empty means this machine's hostname.
  std::string host;

  // These options with the file and interval settings of `logging`.
  FieldLogOptions with_logging(const config::LoggingConfig& logging) const;
};

// The field log (docs/field-log.md): one JSON line per interval summarizing the frames and the
// device, and one line per event, appended to a rotating file in logging.dir. A thread of its
// own does the work, so publish() is a queue push and inference never waits on the disk. When the
// disk refuses lines (missing folder, full, read-only) the status says so, the lines are held
// (bounded) and written in order once it takes them again, retried once per interval.
using FieldLogItem =
    std::variant<std::shared_ptr<const FrameResult>, telemetry::Sample, Event, Int8CheckFigures>;

class FieldLogOutput : public QueuedOutput<FieldLogItem, FieldLogOptions> {
 public:
  explicit FieldLogOutput(FieldLogOptions options = {});
  ~FieldLogOutput() override;

  // Takes logging.dir, interval_s, max_bytes and max_files; they apply from the next line.
  void configure(const config::Config& config) override;
  // The same with options built directly (tests use intervals shorter than the config allows).
  // Once started, only the file, interval and max_held_lines of new options apply.
  void configure(FieldLogOptions options);
  void publish(std::shared_ptr<const FrameResult> result) override;
  void telemetry(const telemetry::Sample& sample) override;
  void event(const Event& event) override;
  // Takes the INT8 checks' figures (the agreement the next interval line records).
  void stats(const DaemonStatus& status) override;
  // status(): {"ok", "file", "lines_written", "lines_held", "lines_lost", "warning" (when not
  // ok)}, updated after every write attempt. Still valid after stop(): ok false then means lines
  // could not be written before exit.
  // stop(): closes the queue, writes what it held and the last partial interval line, and joins
  // the thread; on a failing disk it gives up after FieldLogOptions::stop_attempts.

 private:
  void run() override;
};

}  // namespace yolo::daemon
