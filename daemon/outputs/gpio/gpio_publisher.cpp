// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/gpio/gpio_publisher.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

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
  s.camera_lost = status.source.state == SourceState::kLost;
  return s;
}
bool names_a_line(const config::GpioConfig& gpio) {
  return !gpio.alerts.empty() || gpio.status_led || gpio.precision_button;
}

}  // namespace

GpioPublisher::GpioPublisher(Events& events, PrecisionRequest on_press,
                             std::unique_ptr<gpio::Backend> backend)
    : events_(events),
      on_press_(std::move(on_press)),
      backend_(std::move(backend)),
      wake_fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)),
      status_({{"ok", true}, {"library", backend_->name()}, {"lines", nlohmann::json::array()}}) {}

GpioPublisher::GpioPublisher(Events& events, PrecisionRequest on_press)
    : GpioPublisher(events, std::move(on_press), gpio::libgpiod_backend()) {}

GpioPublisher::~GpioPublisher() {
  stop();
}

void GpioPublisher::configure(const config::Config& config) {
  {
    std::lock_guard lock(pending_mutex_);
    config_ = config.gpio;
    ++config_version_;
  }
  in_use_ = names_a_line(config.gpio);
  wake();
}

void GpioPublisher::start() {
  if (!worker_.running()) worker_.start("gpio", [this] { run(); });
}

void GpioPublisher::publish(std::shared_ptr<const FrameResult> result) {
  if (!result || !in_use_) return;
  queue_.push(std::move(result));
  wake();
}

void GpioPublisher::stats(const DaemonStatus& status) {
  const gpio::DaemonState state = state_of(status);
  {
    std::lock_guard lock(pending_mutex_);
    if (state == state_) return;
    state_ = state;
  }
  wake();
}

nlohmann::json GpioPublisher::status() const {
  std::lock_guard lock(status_mutex_);
  return status_;
}

bool GpioPublisher::stop() {
  queue_.close();
  wake();
  return worker_.stop_within(std::chrono::seconds(2));
}

void GpioPublisher::wake() {
  const std::uint64_t one = 1;
  // Non-blocking: when the counter is already up the thread is awake anyway.
  [[maybe_unused]] const ssize_t written = write(wake_fd_.get(), &one, sizeof one);
}

void GpioPublisher::run() {
  gpio::Controller controller(*backend_);
  std::uint64_t version = 0;
  while (true) {
    std::optional<config::GpioConfig> config;
    gpio::DaemonState state;
    {
      std::lock_guard lock(pending_mutex_);
      if (config_version_ != version) {
        config = config_;
        version = config_version_;
      }
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
               queue_.pop(std::chrono::milliseconds(0))) {
      controller.frame((*result)->detections, Clock::now());
    }
    const auto now = Clock::now();
    for (int presses = controller.read_button(now); presses > 0; --presses) {
      events_.emit(config::LogLevel::kInfo, fieldlog::EventKind::kPrecisionButton,
                   "precision button pressed: asking for the other precision",
                   {{"request", "toggle"}});
      if (on_press_) on_press_("toggle");
    }
    const Clock::time_point next = controller.update(now);
    {
      nlohmann::json status = controller.status();
      std::lock_guard lock(status_mutex_);
      status_ = std::move(status);
    }
    if (queue_.closed()) break;

    auto wait = std::clamp(std::chrono::ceil<std::chrono::milliseconds>(next - Clock::now()),
                           std::chrono::milliseconds(0), std::chrono::milliseconds(kIdle));
    if (controller.button_polled()) wait = std::min(wait, std::chrono::milliseconds(kButtonPoll));
    pollfd fds[2] = {{wake_fd_.get(), POLLIN, 0}, {controller.button_fd(), POLLIN, 0}};
    if (poll(fds, 2, static_cast<int>(wait.count())) > 0 && (fds[0].revents & POLLIN)) {
      std::uint64_t count = 0;
      [[maybe_unused]] const ssize_t got = read(wake_fd_.get(), &count, sizeof count);
    }
  }
}

}  // namespace yolo::daemon
