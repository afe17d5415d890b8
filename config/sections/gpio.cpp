// SPDX-License-Identifier: Apache-2.0
// The gpio section: GPIO lines driven by what the daemon sees, and a button.
#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "config/schema_rows.h"
#include "config/sections/sections.h"
#include "config/suggest.h"
#include "config/yaml_value.h"

namespace yolo::config::section_files {

using namespace rows;

namespace {

// The members every GPIO record has first: which line, on which chip.
template <class R>
Member<R> line_member(std::string_view description) {
  return member("line", &R::line, 0, {.min = 0, .max = 1023, .required = true}, description);
}

template <class R>
Member<R> chip_member() {
  return member("chip", &R::chip, "",
                "Chip of this line (name, path or label); empty uses gpio.chip.");
}

}  // namespace

SectionSpec gpio_spec() {
  return {"gpio",
          "GPIO lines (libgpiod): outputs driven by detections, a status LED and a precision "
          "button; docs/gpio.md shows the wiring."};
}

void add_gpio_fields(std::vector<FieldSpec>& t) {
  const SectionAdder<GpioConfig> add{t, &Config::gpio};
  add("chip", &GpioConfig::chip, "gpiochip0", {.rule = require_text},
      "Chip of every line that names none: a name (gpiochip0), a path (/dev/gpiochip0) or a label "
      "(pinctrl-bcm2711 on a Pi 4, pinctrl-rp1 on a Pi 5).");
  add.records(
      "alerts", &GpioConfig::alerts,
      "Output lines that go active while one of their classes is detected (a buzzer, a relay, an "
      "LED), e.g. [{line: 17, classes: [0], hold_ms: 3000}].",
      {line_member<GpioAlertConfig>("Line offset on the chip (on a Pi: the BCM GPIO number)."),
       chip_member<GpioAlertConfig>(),
       member("classes", &GpioAlertConfig::classes, {}, {.min = 0, .max = 65535},
              "Class ids that set it off, e.g. [0] for COCO person; empty means any class."),
       member("min_score", &GpioAlertConfig::min_score, 0.5, {.min = 0, .max = 1},
              "Lowest score that counts as a sighting."),
       member("consecutive_frames", &GpioAlertConfig::consecutive_frames, 1,
              {.min = 1, .max = 1000},
              "Frames in a row with a sighting before the line goes active."),
       member("hold_ms", &GpioAlertConfig::hold_ms, 2000, {.min = 0, .max = 3600000},
              "Milliseconds the line stays active after the last sighting, so it does not "
              "flicker."),
       member("active_low", &GpioAlertConfig::active_low, false,
              "Active means the line is low (relay boards that switch on low)."),
       member("zone", &GpioAlertConfig::zone, "",
              "A zone's name (zones[].name): the line is active while a tracked object is in that "
              "zone (the zone's classes count; classes and min_score here do not); empty: by "
              "detections.")});
  add.records(
      "status_led", &GpioConfig::status_led,
      "A line with an LED: it blinks once a second while frames are processed, stays on while the "
      "camera is lost and blinks fast when an error needs attention; e.g. {line: 27}, null for "
      "none.",
      {line_member<GpioLedConfig>("Line offset on the chip."), chip_member<GpioLedConfig>(),
       member("active_low", &GpioLedConfig::active_low, false,
              "Lit means the line is low (an LED wired from 3V3 to the line).")});
  add.records(
      "precision_button", &GpioConfig::precision_button,
      "An input line with a push button: a press switches model.precision between fp32 and int8, "
      "as a reload would; e.g. {line: 22}, null for none.",
      {line_member<GpioButtonConfig>("Line offset on the chip."), chip_member<GpioButtonConfig>(),
       member("active_low", &GpioButtonConfig::active_low, true,
              "Pressed reads low: a button from the line to ground, with a pull-up (the usual "
              "wiring)."),
       member("bias", &GpioButtonConfig::bias, GpioBias::kPullUp,
              {.choices = {"pull-up", "pull-down", "disabled", "as-is"}},
              "The line's pull resistor: pull-up for a button to ground, pull-down for a button to "
              "3V3, disabled for an external resistor, as-is leaves it to the device tree."),
       member("debounce_ms", &GpioButtonConfig::debounce_ms, 50, {.min = 1, .max = 1000},
              "Milliseconds the button must read the same before a change counts (contacts "
              "bounce).")});
}

bool is_old_gpio_key(std::string_view name) {
  return name == "enabled" || name == "line" || name == "active_low" || name == "hold_s";
}

void report_old_gpio_keys(const std::vector<OldGpioKey>& keys, Problems& problems) {
  if (keys.empty()) return;
  std::map<std::string, std::string> written;
  std::string names;
  for (const OldGpioKey& k : keys) {
    written[k.name] = k.value;
    names += (names.empty() ? "gpio." : ", gpio.") + k.name;
  }
  const auto enabled = written.find("enabled");
  std::string message =
      names + (keys.size() == 1 ? " is" : " are") +
      " no longer read: the one output line they described is now a rule of gpio.alerts; ";
  if (enabled != written.end() && to_lower(enabled->second) != "true" &&
      to_lower(enabled->second) != "yes" && to_lower(enabled->second) != "on") {
    message += "remove them (gpio.alerts: [] drives no line)";
  } else {
    std::string rule = "{line: " + (written.contains("line") ? written["line"] : "17");
    rule += ", classes: []";
    if (const auto hold = written.find("hold_s"); hold != written.end()) {
      const std::optional<double> s = parse_number(hold->second);
      rule += ", hold_ms: " + (s ? std::to_string(std::llround(*s * 1000)) : hold->second);
    }
    if (written.contains("active_low")) rule += ", active_low: " + written["active_low"];
    rule += "}";
    message += "write instead under gpio: alerts: [" + rule +
               "] (classes: [] means any class; docs/gpio.md shows the other keys)";
  }
  const OldGpioKey& first = keys.front();
  problems.add("gpio." + first.name, first.at, message);
}

// Each line drives or reads one thing. Chips are compared as written: two spellings of one chip
// are caught when the daemon requests the line (the second request finds it busy).
void check_gpio(const GpioConfig& g, Problems& problems) {
  std::map<std::pair<std::string, int>, std::string> users;
  const auto claim = [&](const std::string& chip, int line, const std::string& key) {
    const std::string& on = chip.empty() ? g.chip : chip;
    const auto [it, fresh] = users.emplace(std::make_pair(on, line), key);
    if (fresh || !problems.usable(key + ".line")) return;
    problems.add(key + ".line", problems.written_at(key + ".line"),
                 "line " + std::to_string(line) + " of " + on + " is already used by " +
                     it->second + ": give each alert, the LED and the button a line of its own");
  };
  for (std::size_t i = 0; i < g.alerts.size(); ++i) {
    claim(g.alerts[i].chip, g.alerts[i].line, "gpio.alerts[" + std::to_string(i) + "]");
  }
  if (g.status_led) claim(g.status_led->chip, g.status_led->line, "gpio.status_led");
  if (g.precision_button) {
    claim(g.precision_button->chip, g.precision_button->line, "gpio.precision_button");
  }
}

}  // namespace yolo::config::section_files
