// SPDX-License-Identifier: Apache-2.0
#include "fieldlog/events.h"

#include <algorithm>
#include <array>

namespace yolo::fieldlog {
namespace {

using K = EventKind;

constexpr std::array kSpecs = {
    EventSpec{K::kStart, "start", false},
    EventSpec{K::kReady, "ready", false},
    EventSpec{K::kStop, "stop", false},
    EventSpec{K::kConfig, "config", false},
    EventSpec{K::kConfigRejected, "config_rejected", true},
    EventSpec{K::kPrecisionOverrideDropped, "precision_override_dropped", false},
    EventSpec{K::kSensors, "sensors", false},
    EventSpec{K::kThrottling, "throttling", false},
    EventSpec{K::kSourceAppeared, "source_appeared", false},
    EventSpec{K::kSourceOpened, "source_opened", false},
    EventSpec{K::kSourceLost, "source_lost", false},
    EventSpec{K::kSourceWatchFailed, "source_watch_failed", false},
    EventSpec{K::kThreads, "threads", false},
    EventSpec{K::kFrameFailed, "frame_failed", true},
    EventSpec{K::kSwap, "swap", false},
    EventSpec{K::kModelLoaded, "model_loaded", false},
    EventSpec{K::kModelError, "model_error", true},
    EventSpec{K::kModelBuilt, "model_built", false},
    EventSpec{K::kModelFailed, "model_failed", true},
    EventSpec{K::kQuantizeStarted, "quantize_started", false},
    EventSpec{K::kQuantizeDone, "quantize_done", false},
    EventSpec{K::kQuantizeFailed, "quantize_failed", true},
    EventSpec{K::kQuantizeCancelled, "quantize_cancelled", false},
    EventSpec{K::kCalibrationFrames, "calibration_frames", false},
    EventSpec{K::kPrecisionTrial, "precision_trial", false},
    EventSpec{K::kPrecisionChosen, "precision_chosen", false},
    EventSpec{K::kMqttConnected, "mqtt_connected", false},
    EventSpec{K::kMqttUnreachable, "mqtt_unreachable", false},
    EventSpec{K::kGpioLineUnavailable, "gpio_line_unavailable", false},
    EventSpec{K::kPrecisionButton, "precision_button", false},
    EventSpec{K::kObject, "object", false},
    EventSpec{K::kLogLinesLost, "log_lines_lost", false},
    EventSpec{K::kEventMediaSkipped, "event_media_skipped", false},
    EventSpec{K::kInt8Checks, "int8_checks", false},
    EventSpec{K::kInt8Drift, "int8_drift", false},
};

// The table is indexed by the enum: a kind added to one and not the other fails to compile.
constexpr bool in_enum_order() {
  for (std::size_t i = 0; i < kSpecs.size(); ++i) {
    if (static_cast<std::size_t>(kSpecs[i].kind) != i) return false;
  }
  return static_cast<std::size_t>(K::kInt8Drift) + 1 == kSpecs.size();
}
static_assert(in_enum_order(), "kSpecs must list every EventKind, in the enum's order");

}  // namespace

std::span<const EventSpec> event_specs() {
  return kSpecs;
}

std::string_view event_name(EventKind kind) {
  return kSpecs[static_cast<std::size_t>(kind)].name;
}

std::optional<EventKind> event_kind(std::string_view name) {
  const auto it = std::find_if(kSpecs.begin(), kSpecs.end(),
                               [&](const EventSpec& s) { return s.name == name; });
  if (it == kSpecs.end()) return std::nullopt;
  return it->kind;
}

bool is_error(EventKind kind) {
  return kSpecs[static_cast<std::size_t>(kind)].error;
}

}  // namespace yolo::fieldlog
