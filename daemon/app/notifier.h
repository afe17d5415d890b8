// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace yolo::daemon {

// The service manager's notification socket (sd_notify): READY, RELOADING, STOPPING, STATUS and
// the watchdog. Outside systemd (no NOTIFY_SOCKET) every call does nothing.
class Notifier {
 public:
  Notifier();

  void ready();
  // RELOADING=1 with MONOTONIC_USEC (which Type=notify-reload requires; older systemd ignores it).
  void reloading();
  void stopping();
  void status(const std::string& text);
  void watchdog();
  // How often to ping the watchdog (half of WatchdogSec=), or nothing when it is off.
  std::optional<std::chrono::microseconds> watchdog_period() const { return watchdog_period_; }

 private:
  void send(const std::string& state);
  std::optional<std::chrono::microseconds> watchdog_period_;
};

}  // namespace yolo::daemon
