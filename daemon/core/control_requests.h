// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "os/unique_fd.h"

namespace yolo::daemon {

// What another thread (the HTTP API, a GPIO button) asks of the control loop, which alone
// changes the running configuration: both go through the same path as SIGHUP.
struct ControlRequest {
  enum class Kind { kReload, kPrecision };
  Kind kind = Kind::kReload;
  // For kPrecision: the model.precision to run ("fp32", "int8", or "toggle": the other one).
  std::string precision;
  // Who asked, for logs and messages: "POST /api/precision from 192.168.1.20".
  std::string origin;
};

// The control loop's answer.
struct ControlReply {
  enum class Outcome {
    kApplied,   // the reload ran (a model may still be building beside the running one)
    kRefused,   // the config, with the request applied, is invalid: nothing changed
    kStopping,  // the daemon is stopping
  };
  Outcome outcome = Outcome::kApplied;
  // What happened, for a person: "reloaded: model.precision" or the config's problems.
  std::string message;
  // The settings that changed.
  std::vector<std::string> changed;
};

// Requests from other threads to the control loop. The loop polls fd() and calls serve(); a
// caller either waits for the answer (call) or does not (post).
class ControlRequests {
 public:
  ControlRequests();
  ControlRequests(const ControlRequests&) = delete;
  ControlRequests& operator=(const ControlRequests&) = delete;

  // Readable while requests wait (an eventfd).
  int fd() const { return event_.get(); }
  // Queues `request` and waits up to `timeout` for the answer; nothing when none came in time
  // (the request still runs).
  std::optional<ControlReply> call(ControlRequest request, std::chrono::milliseconds timeout);
  // Queues `request` without waiting for the answer.
  void post(ControlRequest request);
  // Control loop: answers every queued request with `handler`.
  void serve(const std::function<ControlReply(const ControlRequest&)>& handler);
  // Answers queued and later requests with kStopping.
  void close();

 private:
  struct Pending {
    ControlRequest request;
    std::shared_ptr<std::promise<ControlReply>> reply;
  };
  std::shared_ptr<std::promise<ControlReply>> queue(ControlRequest request);

  os::UniqueFd event_;
  std::mutex mutex_;
  std::vector<Pending> pending_;
  bool closed_ = false;
};

}  // namespace yolo::daemon
