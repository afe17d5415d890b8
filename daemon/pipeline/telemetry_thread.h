// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "config/config.h"
#include "daemon/base/worker.h"
#include "daemon/core/events.h"
#include "daemon/core/publisher.h"
#include "telemetry/sampler.h"

namespace yolo::daemon {

// The telemetry thread: samples the device every telemetry.interval_s on its own clock, hands
// each sample to the publishers, keeps the latest for the status, and tells the inference thread
// when the Pi starts or stops throttling (its measured latencies then no longer hold).
class TelemetryThread {
 public:
  using ThrottleChanged = std::function<void(bool throttled)>;

  TelemetryThread(Events& events, std::vector<Publisher*> publishers, ThrottleChanged on_throttle);
  ~TelemetryThread();

  void start(const config::TelemetryConfig& config);
  // A reload changed the telemetry section: sensors are found again under the new root.
  void reconfigure(const config::TelemetryConfig& config);
  bool stop(std::chrono::milliseconds limit);

  std::optional<telemetry::Sample> latest() const;

 private:
  void run();
  std::unique_ptr<telemetry::Sampler> make_sampler(const config::TelemetryConfig& config);

  Events& events_;
  std::vector<Publisher*> publishers_;
  ThrottleChanged on_throttle_;
  Worker worker_;
  // The firmware device stays open across reconfigurations.
  telemetry::FirmwareOpenResult firmware_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::optional<config::TelemetryConfig> pending_;
  std::optional<telemetry::Sample> latest_;
};

}  // namespace yolo::daemon
