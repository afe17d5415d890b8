// SPDX-License-Identifier: Apache-2.0
#include "daemon/app/notifier.h"

#include <systemd/sd-daemon.h>

#include <ctime>

namespace yolo::daemon {

Notifier::Notifier() {
  std::uint64_t usec = 0;
  if (sd_watchdog_enabled(0, &usec) > 0 && usec > 0) {
    watchdog_period_ = std::chrono::microseconds(usec / 2);
  }
}

void Notifier::send(const std::string& state) {
  // A failed notification cannot be reported anywhere useful: systemd is the only reader.
  (void)sd_notify(0, state.c_str());
}

void Notifier::ready() {
  send("READY=1");
}

void Notifier::reloading() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  const long long usec = static_cast<long long>(now.tv_sec) * 1000000 + now.tv_nsec / 1000;
  send("RELOADING=1\nMONOTONIC_USEC=" + std::to_string(usec));
}

void Notifier::stopping() {
  send("STOPPING=1");
}

void Notifier::status(const std::string& text) {
  send("STATUS=" + text);
}

void Notifier::watchdog() {
  send("WATCHDOG=1");
}

}  // namespace yolo::daemon
