// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string_view>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "daemon/core/events.h"
#include "daemon/core/queued_output.h"
#include "daemon/outputs/gpio/chip.h"
#include "daemon/outputs/gpio/controller.h"

namespace yolo::daemon {

// The gpio section (docs/gpio.md): alert lines driven by detections, the status LED driven by
// the daemon's status, and the precision button. A thread of its own owns the lines and does
// all GPIO work, so publish() and stats() only queue and never wait on a chip. A line that
// cannot be had is a warning in the log and in status(), and the rest runs on without it. Lines
// are released (outputs driven inactive first) at stop and when a reload no longer names them;
// a reload re-requests only the lines whose settings changed.
class GpioOutput : public QueuedOutput<std::shared_ptr<const FrameResult>, config::GpioConfig> {
 public:
  // Called on the GPIO thread for each debounced press of gpio.precision_button, with "toggle"
  // (switch to the other precision); it must not block.
  using PrecisionRequest = std::function<void(std::string_view request)>;

  GpioOutput(Events& events, PrecisionRequest on_press, std::unique_ptr<gpio::Backend> backend);
  // The same on the system's libgpiod.
  GpioOutput(Events& events, PrecisionRequest on_press);
  ~GpioOutput() override;

  // Takes the gpio section; the thread applies it before its next frame.
  void configure(const config::Config& config) override;
  void publish(std::shared_ptr<const FrameResult> result) override;
  // Reads last_error and source.state for the LED.
  void stats(const DaemonStatus& status) override;
  // status(): Controller::status(); {"ok": true, "lines": []} while nothing is configured.
  // stop(): releases every line (outputs inactive) and joins the thread.

 private:
  void run() override;

  Events& events_;
  PrecisionRequest on_press_;
  std::unique_ptr<gpio::Backend> backend_;
  // Whether the section names any line: without one, frames are not even queued.
  std::atomic<bool> in_use_{false};

  // The daemon's state for the LED, handed from the control loop to the GPIO thread, newest
  // only (unlike the settings, a change of it must not configure the lines again).
  std::mutex state_mutex_;
  gpio::DaemonState state_;
};

}  // namespace yolo::daemon
