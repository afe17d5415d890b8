// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace yolo::config {

// gpio.precision_button.bias, in the order of its row's choices.
enum class GpioBias { kPullUp, kPullDown, kDisabled, kAsIs };

// One output line that is active while one of its classes is detected (a buzzer, a relay).
struct GpioAlertConfig {
  int line{};
  // Empty: GpioConfig::chip.
  std::string chip;
  // Empty: any class.
  std::vector<int> classes;
  double min_score{};
  int consecutive_frames{};
  int hold_ms{};
  bool active_low{};
  // A zone of the camera (zones[].name): active while a tracked object is in it (its occupancy
  // is above 0; the zone's classes apply, not classes and min_score). Empty: by detections.
  std::string zone;

  bool operator==(const GpioAlertConfig&) const = default;
};

// The status LED: heartbeat while frames flow, steady when the camera is lost, fast on errors.
struct GpioLedConfig {
  int line{};
  std::string chip;
  bool active_low{};

  bool operator==(const GpioLedConfig&) const = default;
};

// An input line whose press switches between FP32 and INT8.
struct GpioButtonConfig {
  int line{};
  std::string chip;
  bool active_low{};
  GpioBias bias{};
  int debounce_ms{};

  bool operator==(const GpioButtonConfig&) const = default;
};

// GPIO lines driven by what the daemon sees, and read from a button. Rows and rules:
// config/sections/gpio.cpp.
struct GpioConfig {
  // Chip of every line that names none: gpiochip0, /dev/gpiochip4 or a label (pinctrl-rp1).
  std::string chip;
  std::vector<GpioAlertConfig> alerts;
  std::optional<GpioLedConfig> status_led;
  std::optional<GpioButtonConfig> precision_button;

  bool operator==(const GpioConfig&) const = default;
};

}  // namespace yolo::config
