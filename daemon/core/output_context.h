// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "daemon/core/control_requests.h"
#include "daemon/core/daemon_status.h"
#include "daemon/core/event_log.h"
#include "daemon/core/events.h"

namespace yolo::daemon {

class Publisher;

// What the daemon gives every output it makes (daemon/outputs/outputs.cpp), so that an output
// needing more than the config (the live view serves the status and takes requests, a GPIO button
// asks for a precision switch) gets it without the service knowing which output wants what.
struct OutputContext {
  Events& events;
  // The tracked-object events seen so far (GET /api/events reads them).
  EventLog& object_events;
  // The daemon's state directory (systemd's StateDirectory): what an output keeps across runs.
  std::filesystem::path state_dir;
  // The daemon's status; null before the first.
  std::function<std::shared_ptr<const DaemonStatus>()> status;
  // Runs a request on the control loop and waits up to the given time for its answer; never
  // from a thread that must not wait.
  std::function<std::optional<ControlReply>(ControlRequest, std::chrono::milliseconds)> call;
  // Hands a request to the control loop without waiting for it.
  std::function<void(ControlRequest)> post;
  // Starts a zone's or line's counts again; false when the camera has no place of that name.
  std::function<bool(const std::string& camera, const std::string& place)> reset_counts{};
  // The daemon's own parts that are fed like outputs and set series of their own (the INT8
  // checks): /metrics collects them beside the outputs.
  std::vector<const Publisher*> measured{};
  // The Prometheus text of GET /metrics (filled in by make_outputs()).
  std::function<std::string()> metrics{};
};

}  // namespace yolo::daemon
