// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>
#include <string_view>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "daemon/core/daemon_status.h"
#include "daemon/core/event.h"
#include "daemon/core/frame_result.h"
#include "telemetry/sample.h"

namespace yolo::daemon {

// A consumer of what the daemon produces: the outputs (field log, live view, metrics, MQTT, GPIO)
// and the calibration reservoir. Each has the same small lifecycle (configure, start, publish,
// stop), and its publish calls only hand over and return, so a slow one never stalls inference:
// one that writes or sends does it on its own thread behind a bounded queue, one that only counts
// (the metrics) does it under a short lock.
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
  // Whether the next results should carry the frame's pixels (FrameResult::frame); asked once per
  // frame, so it must be cheap.
  virtual bool wants_frame() const { return false; }
  // What it would tell a user: {"ok": bool, "warning": "...", ...}; shown in the status.
  virtual nlohmann::json status() const { return nlohmann::json::object(); }
  // Drains its queue (writing what it holds) and joins its thread. Called once, at exit. False
  // when its thread did not end in time (stuck in a call that cannot be interrupted): the daemon
  // must then not be destroyed normally.
  virtual bool stop() = 0;
};

}  // namespace yolo::daemon
