// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/gpio/controller.h"

#include <algorithm>

namespace yolo::daemon::gpio {

namespace {

Bias bias_of(config::GpioBias bias) {
  switch (bias) {
    case config::GpioBias::kPullUp:
      return Bias::kPullUp;
    case config::GpioBias::kPullDown:
      return Bias::kPullDown;
    case config::GpioBias::kDisabled:
      return Bias::kDisabled;
    case config::GpioBias::kAsIs:
      return Bias::kAsIs;
  }
  return Bias::kAsIs;
}

const char* mode_name(LedMode mode) {
  switch (mode) {
    case LedMode::kOff:
      return "off";
    case LedMode::kHeartbeat:
      return "heartbeat";
    case LedMode::kSteady:
      return "steady";
    case LedMode::kFastBlink:
      return "fast-blink";
  }
  return "off";
}

AlertSpec spec_of(const config::GpioAlertConfig& a) {
  return {a.classes, static_cast<float>(a.min_score), a.consecutive_frames,
          std::chrono::milliseconds(a.hold_ms), a.zone};
}

}  // namespace

Controller::Controller(Backend& backend, std::string consumer)
    : backend_(backend), consumer_(std::move(consumer)) {}

std::shared_ptr<Chip> Controller::chip(const std::string& spec) {
  for (const auto& [name, chip] : open_chips_) {
    if (name == spec) return chip;
  }
  for (const auto& [name, error] : chip_errors_) {
    if (name == spec) throw error;
  }
  try {
    std::shared_ptr<Chip> chip = open_chip(backend_, spec);
    open_chips_.emplace_back(spec, chip);
    return chip;
  } catch (const GpioError& e) {
    chip_errors_.emplace_back(spec, e);
    throw;
  }
}

void Controller::request(Output& output) {
  try {
    output.line = chip(output.key.chip)
                      ->request_output({static_cast<unsigned>(output.key.line),
                                        output.key.active_low, false, consumer_});
    output.driven = false;
  } catch (const GpioError& e) {
    output.error = e.what();
  }
}

void Controller::request(Button& button, std::chrono::milliseconds debounce) {
  InputRequest r{static_cast<unsigned>(button.key.line), button.key.active_low,
                 bias_of(button.key.bias), true, consumer_};
  try {
    std::shared_ptr<Chip> c = chip(button.key.chip);
    try {
      button.line = c->request_input(r);
    } catch (const GpioError& e) {
      // Chips without interrupts (some I2C expanders) can still be read: poll them.
      if (e.kind() != ErrorKind::kUnsupported) throw;
      r.edges = false;
      button.line = c->request_input(r);
      button.edges = false;
    }
    button.debouncer.emplace(debounce, button.line->get());
  } catch (const GpioError& e) {
    button.line.reset();
    button.error = e.what();
  }
}

std::vector<std::string> Controller::configure(const config::GpioConfig& gpio) {
  const auto chip_of = [&](const std::string& chip) { return chip.empty() ? gpio.chip : chip; };

  // What is wanted, keeping the lines (and rule states) that stay the same.
  std::vector<Output> wanted;
  for (std::size_t i = 0; i < gpio.alerts.size(); ++i) {
    const config::GpioAlertConfig& a = gpio.alerts[i];
    wanted.push_back({"gpio.alerts[" + std::to_string(i) + "]",
                      {chip_of(a.chip), a.line, a.active_low},
                      AlertRule(spec_of(a)),
                      nullptr,
                      std::nullopt,
                      ""});
  }
  if (gpio.status_led) {
    const config::GpioLedConfig& l = *gpio.status_led;
    wanted.push_back({"gpio.status_led",
                      {chip_of(l.chip), l.line, l.active_low},
                      std::nullopt,
                      nullptr,
                      std::nullopt,
                      ""});
  }
  for (Output& w : wanted) {
    const auto same = [&](const Output& o) { return o.line && o.key == w.key; };
    const auto it = std::find_if(outputs_.begin(), outputs_.end(), same);
    if (it == outputs_.end()) continue;
    w.line = std::move(it->line);
    w.driven = it->driven;
    if (w.rule && it->rule && it->rule->spec() == w.rule->spec()) w.rule = it->rule;
  }
  std::optional<Button> button;
  if (gpio.precision_button) {
    const config::GpioButtonConfig& b = *gpio.precision_button;
    button.emplace();
    button->key = {chip_of(b.chip), b.line, b.active_low, b.bias};
    if (button_ && button_->line && button_->key == button->key) {
      button->line = std::move(button_->line);
      button->edges = button_->edges;
      button->presses = button_->presses;
      button->debouncer.emplace(std::chrono::milliseconds(b.debounce_ms),
                                button_->debouncer->level());
    }
  }
  // Release what goes before requesting what comes: a line that changed settings is requested
  // again, and would be busy while the old request holds it.
  outputs_.clear();
  button_.reset();
  open_chips_.clear();
  chip_errors_.clear();
  for (Output& w : wanted) {
    if (!w.line) request(w);
  }
  if (button && !button->line) {
    request(*button, std::chrono::milliseconds(gpio.precision_button->debounce_ms));
  }
  outputs_ = std::move(wanted);
  button_ = std::move(button);
  open_chips_.clear();
  chip_errors_.clear();

  std::vector<std::string> problems;
  for (const Output& o : outputs_) {
    if (!o.error.empty()) problems.push_back(o.use + ": " + o.error);
  }
  if (button_ && !button_->error.empty()) {
    problems.push_back("gpio.precision_button: " + button_->error);
  }
  return problems;
}

void Controller::frame(const vision::Detections& detections, Clock::time_point t,
                       const ZoneOccupancy& occupancy) {
  if (last_frame_ && t > *last_frame_) {
    const Clock::duration gap = t - *last_frame_;
    frame_interval_ = frame_interval_ ? (*frame_interval_ * 3 + gap) / 4 : gap;
  }
  last_frame_ = t;
  for (Output& o : outputs_) {
    if (o.rule) o.rule->observe(detections, t, occupancy);
  }
}

void Controller::daemon_state(DaemonState state) {
  state_ = state;
}

int Controller::read_button(Clock::time_point now) {
  if (!button_ || !button_->line) return 0;
  Button& b = *button_;
  int presses = 0;
  try {
    if (b.edges) {
      while (const std::optional<Edge> edge = b.line->read_edge(std::chrono::milliseconds(0))) {
        b.debouncer->sample(edge->rising, now);
      }
      // Before a change counts, the line itself must agree: an edge lost in a burst of
      // bounces would otherwise leave a wrong level behind.
      if (const auto due = b.debouncer->deadline(); due && now >= *due) {
        b.debouncer->sample(b.line->get(), now);
      }
    } else {
      b.debouncer->sample(b.line->get(), now);
    }
    if (const std::optional<bool> level = b.debouncer->settle(now); level && *level) {
      ++presses;
      ++b.presses;
    }
  } catch (const GpioError& e) {
    b.error = e.what();
    b.line.reset();
  }
  return presses;
}

void Controller::drive(Output& o, bool active) {
  if (!o.line || o.driven == active) return;
  try {
    o.line->set(active);
    o.driven = active;
  } catch (const GpioError& e) {
    o.error = e.what();
    o.line.reset();
  }
}

Controller::Clock::duration Controller::flowing_for() const {
  const Clock::duration usual = frame_interval_ ? *frame_interval_ * 5 / 2 : Clock::duration{0};
  return std::max<Clock::duration>(kFramesFlowing, usual);
}

Controller::Clock::time_point Controller::update(Clock::time_point now) {
  const bool flowing = last_frame_ && now - *last_frame_ < flowing_for();
  led_.set_mode(led_mode(state_.error, state_.camera_lost, flowing), now);
  Clock::time_point next = Clock::time_point::max();
  for (Output& o : outputs_) {
    if (o.rule) {
      drive(o, o.rule->active(now));
      if (const auto due = o.rule->deadline(now)) next = std::min(next, *due);
    } else {
      drive(o, led_.lit(now));
      next = std::min(next, led_.next_change(now));
    }
  }
  if (flowing) next = std::min(next, *last_frame_ + flowing_for());
  if (button_ && button_->line) {
    if (const auto due = button_->debouncer->deadline()) next = std::min(next, *due);
  }
  return next;
}

int Controller::button_fd() const {
  return button_ && button_->line ? button_->line->event_fd() : -1;
}

bool Controller::button_polled() const {
  return button_ && button_->line && !button_->edges;
}

nlohmann::json Controller::status() const {
  nlohmann::json lines = nlohmann::json::array();
  std::string warning;
  const auto add = [&](const std::string& use, const std::string& chip, int line,
                       const std::string& error, nlohmann::json state) {
    nlohmann::json j = {{"use", use}, {"chip", chip}, {"line", line}};
    if (error.empty()) {
      j.update(state);
    } else {
      j["error"] = error;
      warning += (warning.empty() ? "" : "; ") + use + ": " + error + " (running without it)";
    }
    lines.push_back(std::move(j));
  };
  for (const Output& o : outputs_) {
    nlohmann::json state = {{"active", o.driven.value_or(false)}};
    if (!o.rule) state["mode"] = mode_name(led_.mode());
    add(o.use, o.key.chip, o.key.line, o.error, std::move(state));
  }
  if (button_) {
    add("gpio.precision_button", button_->key.chip, button_->key.line, button_->error,
        {{"pressed", button_->debouncer && button_->debouncer->level()},
         {"presses", button_->presses},
         {"read_by", button_->edges ? "edges" : "polling"}});
  }
  nlohmann::json s = {{"ok", warning.empty()}, {"library", backend_.name()}, {"lines", lines}};
  if (!warning.empty()) s["warning"] = warning;
  return s;
}

}  // namespace yolo::daemon::gpio
