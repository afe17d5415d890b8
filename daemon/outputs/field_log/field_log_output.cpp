// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/field_log/field_log_output.h"

#include "daemon/base/host_name.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <optional>
#include <utility>

#include "daemon/core/logger.h"
#include "fieldlog/keys.h"
#include "text/format.h"
#include "text/time_format.h"

namespace yolo::daemon {

namespace {

using Clock = std::chrono::steady_clock;

// One line of JSON. Text that is not valid UTF-8 (a class name from a model's metadata, a path
// in an event: Linux paths are bytes) is written with U+FFFD in place of the bad bytes instead of
// throwing, which would end the thread.
std::string line_text(const nlohmann::ordered_json& line) {
  return line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

// An event as its line: "type", "event" and "time" first, then "level", "message" and its own
// fields in name order. An event's own "type" would clash with the line's and becomes
// "event_type"; its own "event" or "time" would hide the line's and is left out.
nlohmann::ordered_json event_line(const Event& event) {
  nlohmann::ordered_json line;
  line[fieldlog::key::kType] = fieldlog::kEventLine;
  line[fieldlog::key::kEvent] = fieldlog::event_name(event.kind);
  line[fieldlog::key::kTime] = text::iso8601_utc(event.time);
  nlohmann::json rest = event.fields;
  rest["level"] = level_name(event.level);
  rest["message"] = event.message;
  for (const auto& [key, value] : rest.items()) {
    if (key == fieldlog::key::kEvent || key == fieldlog::key::kTime) continue;
    line[key == fieldlog::key::kType ? "event_type" : key] = value;
  }
  return line;
}

// A tracked object's event as its line: "type", "event" ("object") and "time" first, then the
// event's JSON (tracking::to_json) with its "type" as "event_type" (as event_line() does), and
// "level" and "message" as every event line has them.
nlohmann::ordered_json object_line(const tracking::ObjectEvent& event) {
  nlohmann::ordered_json line;
  line[fieldlog::key::kType] = fieldlog::kEventLine;
  line[fieldlog::key::kEvent] = fieldlog::event_name(fieldlog::EventKind::kObject);
  line[fieldlog::key::kTime] = text::iso8601_utc(event.wall);
  std::string message = event.label + " " + std::to_string(event.track_id);
  switch (event.kind) {
    case tracking::ObjectEventKind::kNew:
      message += " appeared";
      break;
    case tracking::ObjectEventKind::kEnter:
      message += " entered zone " + event.place;
      break;
    case tracking::ObjectEventKind::kLeave:
      message += " left zone " + event.place;
      break;
    case tracking::ObjectEventKind::kCross:
      message += " crossed line " + event.place + " (" +
                 std::string(tracking::direction_name(event.direction)) + ")";
      break;
    case tracking::ObjectEventKind::kLoiter:
      message += " loiters in zone " + event.place;
      break;
    case tracking::ObjectEventKind::kEnd:
      message += " is gone";
      break;
  }
  nlohmann::json rest = tracking::to_json(event);
  rest["level"] = level_name(config::LogLevel::kInfo);
  rest["message"] = message + " on camera " + event.camera;
  for (const auto& [key, value] : rest.items()) {
    if (key == fieldlog::key::kTime) continue;
    line[key == fieldlog::key::kType ? fieldlog::key::kEventType : key] = value;
  }
  return line;
}

// The lines the disk has not taken yet, in order, and the file they go to. Owned by the field
// log's thread.
class LineWriter {
 public:
  // At least the line being written is held, whatever `max_held` says.
  LineWriter(RotationPolicy policy, std::size_t max_held)
      : file_(std::move(policy)), max_held_(std::max<std::size_t>(max_held, 1)) {}

  void set_policy(RotationPolicy policy, std::size_t max_held) {
    if (!(policy == file_.policy())) file_.set_policy(std::move(policy));
    max_held_ = std::max<std::size_t>(max_held, 1);
    drop_beyond_bound();
  }

  // Holds `line` until write() gets it to the disk; the oldest held line goes when the bound is
  // passed.
  void add(std::string line) {
    held_.push_back(std::move(line));
    drop_beyond_bound();
  }

  // Writes the held lines in order, preceded by a "log_lines_lost" event when some were dropped;
  // stops at the first error, which the status shows until a write succeeds. With `sync`, what
  // was written is flushed to the disk. The file is closed afterwards, so each batch opens it by
  // path again.
  void write(bool sync) {
    if (lost_ > 0) {
      nlohmann::ordered_json lost{
          {fieldlog::key::kType, fieldlog::kEventLine},
          {fieldlog::key::kEvent, fieldlog::event_name(fieldlog::EventKind::kLogLinesLost)},
          {fieldlog::key::kTime, text::iso8601_utc(std::chrono::system_clock::now())},
          {"lines", lost_},
          {"reason", lost_reason_}};
      if (!append(line_text(lost))) return;
      lost_ = 0;
    }
    while (!held_.empty() && append(held_.front())) {
      held_.pop_front();
      ++written_;
    }
    if (sync && !error_) error_ = file_.sync();
    file_.close();
  }

  // Whether everything was written.
  bool done() const { return held_.empty() && lost_ == 0; }
  bool failing() const { return error_.has_value(); }

  nlohmann::json status(std::chrono::milliseconds retry) const {
    nlohmann::json s{{"ok", true},
                     {"file", file_.path().string()},
                     {"lines_written", written_},
                     {"lines_held", held_.size()},
                     {"lines_lost", lost_total_}};
    if (error_) {
      s["ok"] = false;
      s["warning"] = "field log: " + error_->message() + "; holding " +
                     std::to_string(held_.size()) + " lines (at most " + std::to_string(max_held_) +
                     ", the oldest dropped beyond) and retrying every " +
                     text::duration_text(retry);
    } else if (const auto& folder = file_.folder_warning()) {
      s["ok"] = false;
      s["warning"] = "field log: " + folder->message() + "; lines still go to " +
                     file_.path().string() + " but it cannot be rotated past logging.max_bytes";
    }
    return s;
  }

 private:
  bool append(const std::string& line) {
    error_ = file_.append(line);
    if (!error_) return true;
    file_.close();
    return false;
  }

  void drop_beyond_bound() {
    while (held_.size() > max_held_) {
      held_.pop_front();
      ++lost_;
      ++lost_total_;
      lost_reason_ = error_ ? error_->message() : "the disk took lines slower than they came";
    }
  }

  RotatingFile file_;
  std::size_t max_held_;
  std::deque<std::string> held_;
  // Lines dropped since the last "log_lines_lost" event, and in all.
  std::int64_t lost_ = 0;
  std::int64_t lost_total_ = 0;
  // Why the last lines were dropped, for that event.
  std::string lost_reason_;
  std::int64_t written_ = 0;
  // The last write's error; cleared by a successful write.
  std::optional<FileError> error_;
};

}  // namespace

FieldLogOptions FieldLogOptions::with_logging(const config::LoggingConfig& logging) const {
  FieldLogOptions options = *this;
  options.file.dir = logging.dir;
  options.file.max_bytes = logging.max_bytes;
  options.file.max_files = logging.max_files;
  options.interval = std::chrono::milliseconds(std::llround(logging.interval_s * 1000.0));
  return options;
}

// Its own retries at stop are bounded (options.stop_attempts); the stop limit only catches a
// write the kernel never returns from (a hung network file system).
FieldLogOutput::FieldLogOutput(FieldLogOptions options)
    : QueuedOutput("field-log", options.queue_capacity, std::chrono::seconds(4), options,
                   LineWriter(options.file, options.max_held_lines).status(options.interval)) {
  configure(std::move(options));
}

FieldLogOutput::~FieldLogOutput() {
  stop_worker();
}

void FieldLogOutput::configure(const config::Config& config) {
  configure(settings().with_logging(config.logging));
}

void FieldLogOutput::configure(FieldLogOptions options) {
  if (options.host.empty()) options.host = host_name();
  hand_over(std::move(options));
}

void FieldLogOutput::publish(std::shared_ptr<const FrameResult> result) {
  if (result) push(std::move(result));
}

void FieldLogOutput::telemetry(const telemetry::Sample& sample) {
  push(sample);
}

void FieldLogOutput::event(const Event& event) {
  push(event);
}

void FieldLogOutput::stats(const DaemonStatus& status) {
  if (status.int8_checks) push(*status.int8_checks);
}

void FieldLogOutput::run() {
  FieldLogOptions options = take_settings().value_or(settings());
  LineWriter writer(options.file, options.max_held_lines);
  IntervalStats interval(options.host, Clock::now());
  auto deadline = interval.start() + options.interval;
  std::int64_t queue_dropped = 0;

  // Ends the interval at `end` with its line and starts the next.
  const auto close_interval = [&](Clock::time_point end) {
    const std::int64_t dropped = queue().dropped();
    interval.add_unlogged(dropped - queue_dropped);
    queue_dropped = dropped;
    writer.add(line_text(interval.line(std::chrono::system_clock::now(), end)));
    interval = interval.next(end);
    deadline = end + options.interval;
  };
  const auto flush = [&](bool sync) {
    writer.write(sync);
    report(writer.status(options.interval));
  };

  while (true) {
    std::optional<FieldLogItem> item = queue().pop(deadline - Clock::now());
    if (std::optional<FieldLogOptions> next = take_settings()) {
      options.file = next->file;
      options.interval = next->interval;
      options.max_held_lines = next->max_held_lines;
      writer.set_policy(options.file, options.max_held_lines);
      deadline = interval.start() + options.interval;
    }
    const auto now = Clock::now();
    // Closed first, then empty: once closed nothing more comes in, so nothing is left behind.
    if (!item && queue().closed() && queue().size() == 0) break;
    if (item) {
      if (auto* result = std::get_if<std::shared_ptr<const FrameResult>>(&*item)) {
        // Every line has one model and precision: a swap ends the interval early.
        if (interval.runs_other_model(**result)) {
          close_interval(now);
          flush(false);
        }
        if (!(*result)->frameless) interval.add(**result);
        // Written with the next interval line, not one write each: a busy road makes many
        // events, and an SD card wears with every write.
        for (const tracking::ObjectEvent& event : (*result)->object_events) {
          writer.add(line_text(object_line(event)));
        }
      } else if (auto* sample = std::get_if<telemetry::Sample>(&*item)) {
        interval.add(*sample);
      } else if (auto* figures = std::get_if<Int8CheckFigures>(&*item)) {
        interval.add(*figures);
      } else {
        writer.add(line_text(event_line(std::get<Event>(*item))));
        // While the disk fails, held lines wait for the next interval's retry.
        if (writer.failing()) {
          report(writer.status(options.interval));
        } else {
          flush(false);
        }
      }
    }
    if (now >= deadline) {
      close_interval(now);
      flush(false);
    }
  }

  // The last, partial interval, then a bounded number of attempts to get everything out.
  close_interval(Clock::now());
  for (int attempt = 1;; ++attempt) {
    flush(true);
    if (writer.done() || attempt >= options.stop_attempts) break;
    std::this_thread::sleep_for(options.stop_retry_pause);
  }
}

}  // namespace yolo::daemon
