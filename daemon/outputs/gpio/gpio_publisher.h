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
#include "daemon/base/bounded_queue.h"
#include "daemon/base/worker.h"
#include "daemon/core/events.h"
#include "daemon/core/publisher.h"
#include "daemon/outputs/gpio/chip.h"
#include "daemon/outputs/gpio/controller.h"
#include "os/unique_fd.h"

namespace yolo::daemon {

// The gpio section (docs/gpio.md): alert lines driven by detections, the status LED driven by
// the daemon's status, and the precision button. A thread of its own owns the lines and does
// all GPIO work, so publish() and stats() only queue and never wait on a chip. A line that
// cannot be had is a warning in the log and in status(), and the rest runs on without it. Lines
// are released (outputs driven inactive first) at stop and when a reload no longer names them;
// a reload re-requests only the lines whose settings changed.
class GpioPublisher : public Publisher {
 public:
  // Called on the GPIO thread for each debounced press of gpio.precision_button, with "toggle"
  // (switch to the other precision); it must not block.
  using PrecisionRequest = std::function<void(std::string_view request)>;

  GpioPublisher(Events& events, PrecisionRequest on_press, std::unique_ptr<gpio::Backend> backend);
  // The same on the system's libgpiod.
  GpioPublisher(Events& events, PrecisionRequest on_press);
  ~GpioPublisher() override;

  std::string_view name() const override { return "gpio"; }
  // Takes the gpio section; the thread applies it before its next frame.
  void configure(const config::Config& config) override;
  void start() override;
  void publish(std::shared_ptr<const FrameResult> result) override;
  // Reads last_error and source.state for the LED.
  void stats(const DaemonStatus& status) override;
  // Controller::status(); {"ok": true, "lines": []} while nothing is configured.
  nlohmann::json status() const override;
  // Releases every line (outputs inactive) and joins the thread.
  bool stop() override;

 private:
  void run();
  // Wakes the thread out of its poll().
  void wake();

  Events& events_;
  PrecisionRequest on_press_;
  std::unique_ptr<gpio::Backend> backend_;
  BoundedQueue<std::shared_ptr<const FrameResult>> queue_{256};
  os::UniqueFd wake_fd_;
  Worker worker_;
  // Whether the section names any line: without one, frames are not even queued.
  std::atomic<bool> in_use_{false};

  // Handed from the other threads to the GPIO thread, newest only.
  std::mutex pending_mutex_;
  config::GpioConfig config_;
  std::uint64_t config_version_ = 0;
  gpio::DaemonState state_;

  mutable std::mutex status_mutex_;
  nlohmann::json status_;
};

}  // namespace yolo::daemon
