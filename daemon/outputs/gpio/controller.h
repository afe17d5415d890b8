// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "daemon/outputs/gpio/alert_rule.h"
#include "daemon/outputs/gpio/chip.h"
#include "daemon/outputs/gpio/debouncer.h"
#include "daemon/outputs/gpio/status_led.h"
#include "vision/detection.h"

namespace yolo::daemon::gpio {

// What the status LED reads from the daemon's status.
struct DaemonState {
  // An error needs attention (the status has a last_error).
  bool error = false;
  // The source is lost (source.state "lost").
  bool camera_lost = false;

  bool operator==(const DaemonState&) const = default;
};

// The gpio section at work, without a thread of its own (GpioOutput gives it one): holds the
// lines the config names, feeds frames to the alert rules and the daemon's state to the LED,
// debounces the button, and drives the outputs. Time is passed in, so tests run it on a fake
// chip with a clock of their own. A line that cannot be had (missing chip or line, busy, no
// permission) is left out with its problem in status(); the others work.
class Controller {
 public:
  using Clock = std::chrono::steady_clock;
  // Frames count as flowing (heartbeat) until this long after the last one, or 2.5 times the
  // usual interval between frames when that is longer (a device doing a frame every 10 s is
  // working, not stalled).
  static constexpr std::chrono::milliseconds kFramesFlowing{2000};

  explicit Controller(Backend& backend, std::string consumer = "yolo-edged");

  // Takes the gpio section: lines whose chip, offset and request settings are unchanged are
  // kept as they are (an alert whose rule is unchanged keeps its state too), the others are
  // released first and then requested, and lines that failed before are tried again. Returns
  // the problems of this attempt, one per line that could not be had ("gpio.alerts[1]: ...").
  std::vector<std::string> configure(const config::GpioConfig& gpio);
  // One processed frame, captured at `t`, with the zones' occupancy after it (empty with
  // tracking off).
  void frame(const vision::Detections& detections, Clock::time_point t,
             const ZoneOccupancy& occupancy = {});
  void daemon_state(DaemonState state);
  // Reads what the button did since the last call; the presses that settled by `now`.
  int read_button(Clock::time_point now);
  // Drives every output line to what its rule or the LED pattern says at `now`. Returns when
  // something changes next without a new frame (call again then at the latest).
  Clock::time_point update(Clock::time_point now);
  // For poll(): readable when the button has edges to read; -1 without an edge-reading button.
  int button_fd() const;
  // The button is read by polling (its chip does no edge events): read_button() every few ms.
  bool button_polled() const;
  // {"ok", "library", "lines": [{"use", "chip", "line", "active" | "mode" | "pressed", "error"}],
  //  "warning" (when a line is missing)}.
  nlohmann::json status() const;

 private:
  // Who an output line is, as far as requesting it goes.
  struct OutputKey {
    std::string chip;
    int line = 0;
    bool active_low = false;
    bool operator==(const OutputKey&) const = default;
  };
  struct Output {
    std::string use;  // "gpio.alerts[0]", "gpio.status_led"
    OutputKey key;
    std::optional<AlertRule> rule;  // none for the LED
    std::unique_ptr<OutputLine> line;
    std::optional<bool> driven;  // the value last set
    std::string error;
  };
  struct ButtonKey {
    std::string chip;
    int line = 0;
    bool active_low = false;
    config::GpioBias bias{};
    bool operator==(const ButtonKey&) const = default;
  };
  struct Button {
    ButtonKey key;
    std::unique_ptr<InputLine> line;
    bool edges = true;
    std::optional<Debouncer> debouncer;
    std::int64_t presses = 0;
    std::string error;
  };

  std::shared_ptr<Chip> chip(const std::string& spec);
  void request(Output& output);
  void request(Button& button, std::chrono::milliseconds debounce);
  void drive(Output& output, bool active);
  // How long after the last frame frames still count as flowing.
  Clock::duration flowing_for() const;

  Backend& backend_;
  std::string consumer_;
  // Chips opened during one configure(), and the problem of each that would not open.
  std::vector<std::pair<std::string, std::shared_ptr<Chip>>> open_chips_;
  std::vector<std::pair<std::string, GpioError>> chip_errors_;

  std::vector<Output> outputs_;
  std::optional<Button> button_;
  StatusLed led_;
  DaemonState state_;
  std::optional<Clock::time_point> last_frame_;
  // The usual interval between frames (a running mean), once two came.
  std::optional<Clock::duration> frame_interval_;
};

}  // namespace yolo::daemon::gpio
