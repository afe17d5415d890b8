// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>
#include <string_view>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "daemon/core/daemon_status.h"
#include "daemon/core/event.h"
#include "daemon/core/frame_result.h"
#include "daemon/core/metrics_sink.h"
#include "telemetry/sample.h"

namespace yolo::daemon {

// A consumer of what the daemon produces: the outputs (daemon/outputs/outputs.cpp makes them
// from its table) and the calibration reservoir. Each has the same small lifecycle (configure,
// start, publish, stop), and its publish calls only hand over and return, so a slow one never
// stalls inference: one that writes or sends does it on its own thread (QueuedOutput,
// daemon/core/queued_output.h), one that only counts (the metrics) does it under a short lock.
// The metrics and the reservoir send nothing anywhere but are fed the same way (every frame, and
// for the metrics every sample, event and status), which is all this interface is: the feeds
// have defaults, so each overrides only what it reads.
class Publisher {
 public:
  virtual ~Publisher() = default;
  Publisher() = default;
  Publisher(const Publisher&) = delete;
  Publisher& operator=(const Publisher&) = delete;

  // Short name for logs and status ("field-log").
  virtual std::string_view name() const = 0;
  // Takes the settings it reads, at start (before start()) and on every valid reload. Must not
  // block on I/O; a problem it finds is reported through its status, not thrown.
  virtual void configure(const config::Config& config) = 0;
  virtual void start() = 0;
  // One processed frame, from the inference thread.
  virtual void publish(std::shared_ptr<const FrameResult> result) = 0;
  // One telemetry sample, from the telemetry thread.
  virtual void telemetry(const telemetry::Sample& sample) { (void)sample; }
  // One event (start, stop, reload, swap, thread decision, camera lost, ...); from any thread.
  virtual void event(const Event& event) { (void)event; }
  // The daemon's status, about once a second from the control loop (MQTT publishes it as
  // PREFIX/stats).
  virtual void stats(const DaemonStatus& status) { (void)status; }
  // Whether `result` (detected and tracked, not yet published) should carry its frame's pixels
  // (FrameResult::frame), which costs a copy of the frame; asked once per frame, from the inference
  // thread, so it must be cheap.
  virtual bool wants_frame(const FrameResult& result) const {
    (void)result;
    return false;
  }
  // What it would tell a user: {"ok": bool, "warning": "...", ...}; shown in the status.
  virtual nlohmann::json status() const { return nlohmann::json::object(); }
  // Sets its own Prometheus series (what status() counts) on `sink`; at every scrape of
  // GET /metrics, from the thread serving it, so it reads only what status() reads.
  virtual void metrics(MetricsSink& sink) const { (void)sink; }
  // Drains its queue (writing what it holds) and joins its thread. Called once, at exit. False
  // when its thread did not end in time (stuck in a call that cannot be interrupted): the daemon
  // must then not be destroyed normally.
  virtual bool stop() = 0;
};

}  // namespace yolo::daemon
