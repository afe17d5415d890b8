// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/gpio/gpio_output.h"

#include <poll.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "daemon/outputs/gpio/libgpiod.h"

namespace yolo::daemon {

namespace {

using Clock = std::chrono::steady_clock;

// Longest sleep of the thread with nothing to do, and the read interval of a button whose chip
// has no edge events.
constexpr auto kIdle = std::chrono::milliseconds(1000);
constexpr auto kButtonPoll = std::chrono::milliseconds(10);

gpio::DaemonState state_of(const DaemonStatus& status) {
  gpio::DaemonState s;
  s.error = status.last_error.has_value();
  s.camera_lost =
      std::any_of(status.cameras.begin(), status.cameras.end(),
                  [](const CameraStatus& c) { return c.source.state == SourceState::kLost; });
  return s;
}
bool names_a_line(const config::GpioConfig& gpio) {
  return !gpio.alerts.empty() || gpio.status_led || gpio.precision_button;
}

}  // namespace

GpioOutput::GpioOutput(Events& events, PrecisionRequest on_press,
                       std::unique_ptr<gpio::Backend> backend)
    : QueuedOutput(
          "gpio", 256, std::chrono::seconds(2), {},
          {{"ok", true}, {"library", backend->name()}, {"lines", nlohmann::json::array()}}),
      events_(events),
      on_press_(std::move(on_press)),
      backend_(std::move(backend)) {}

GpioOutput::GpioOutput(Events& events, PrecisionRequest on_press)
    : GpioOutput(events, std::move(on_press), gpio::libgpiod_backend()) {}

GpioOutput::~GpioOutput() {
  stop_worker();
}

void GpioOutput::configure(const config::Config& config) {
  in_use_ = names_a_line(config.gpio);
  hand_over(config.gpio);
}

void GpioOutput::publish(std::shared_ptr<const FrameResult> result) {
  // Without a frame nothing is known of the scene: the alerts keep their state while the camera
  // is away (its LED pattern says so).
  if (!result || !in_use_ || result->frameless) return;
  push(std::move(result));
}

void GpioOutput::stats(const DaemonStatus& status) {
  const gpio::DaemonState state = state_of(status);
  {
    std::lock_guard lock(state_mutex_);
    if (state == state_) return;
    state_ = state;
  }
  wake();
}

void GpioOutput::run() {
  gpio::Controller controller(*backend_);
  while (true) {
    const std::optional<config::GpioConfig> config = take_settings();
    gpio::DaemonState state;
    {
      std::lock_guard lock(state_mutex_);
      state = state_;
    }
    if (config) {
      for (const std::string& problem : controller.configure(*config)) {
        events_.emit(config::LogLevel::kWarning, fieldlog::EventKind::kGpioLineUnavailable,
                     problem + "; running without that line", {{"problem", problem}});
      }
    }
    controller.daemon_state(state);
    // A result counts from when it arrives, not from its frame's capture: on a slow device the
    // frame was read a few inference times before its result, and the LED would call that a stall.
    while (std::optional<std::shared_ptr<const FrameResult>> result =
               queue().pop(std::chrono::milliseconds(0))) {
      const FrameResult& r = **result;
      controller.frame(r.detections, Clock::now(),
                       r.scene ? r.scene->occupancy : gpio::ZoneOccupancy{});
    }
    const auto now = Clock::now();
    for (int presses = controller.read_button(now); presses > 0; --presses) {
      events_.emit(config::LogLevel::kInfo, fieldlog::EventKind::kPrecisionButton,
                   "precision button pressed: asking for the other precision",
                   {{"request", "toggle"}});
      if (on_press_) on_press_("toggle");
    }
    const Clock::time_point next = controller.update(now);
    report(controller.status());
    if (queue().closed()) break;

    auto wait = std::clamp(std::chrono::ceil<std::chrono::milliseconds>(next - Clock::now()),
                           std::chrono::milliseconds(0), std::chrono::milliseconds(kIdle));
    if (controller.button_polled()) wait = std::min(wait, std::chrono::milliseconds(kButtonPoll));
    pollfd fds[2] = {{wake_fd().fd(), POLLIN, 0}, {controller.button_fd(), POLLIN, 0}};
    if (poll(fds, 2, static_cast<int>(wait.count())) > 0 && (fds[0].revents & POLLIN)) {
      wake_fd().clear();
    }
  }
}

}  // namespace yolo::daemon
