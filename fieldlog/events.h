// SPDX-License-Identifier: Apache-2.0
#pragma once

// The field log's vocabulary, shared by yolo-edged, which writes it, and `yolo-edge report` and
// `yolo-edge logs`, which read it (docs/field-log.md): the kinds of event, each named once.

#include <optional>
#include <span>
#include <string_view>

namespace yolo::fieldlog {

// Everything the daemon reports as an event line ({"type": "event", "event": NAME, ...}).
enum class EventKind {
  kStart,                     // the daemon starts, before its config is acted on
  kReady,                     // the first frame is processed
  kStop,                      // the daemon stops (signal or fatal error)
  kConfig,                    // a reload took a new config
  kConfigRejected,            // a reload found the config invalid and kept the old one
  kPrecisionOverrideDropped,  // a precision chosen through the API ends with a reload
  kSensors,                   // which sensors this device has
  kThrottling,                // the Pi starts or stops reporting throttling
  kSourceAppeared,            // the camera's device node came back
  kSourceOpened,              // the source opened (or reopened)
  kSourceLost,                // the source failed or vanished; retried
  kSourceWatchFailed,         // the camera's device cannot be watched; retried on a timer
  kThreads,                   // the adaptive thread controller changed or confirmed the count
  kFrameFailed,               // one frame failed inference
  kSwap,                      // another model or precision took over
  kModelLoaded,               // a model file was loaded at start
  kModelError,                // a model could not be loaded or run
  kModelBuilt,                // a model was built for a swap
  kModelFailed,               // a model for a swap or at start failed to build
  kQuantizeStarted,           // `quantize: auto` started making the INT8 file
  kQuantizeDone,              // ... and finished it
  kQuantizeFailed,            // ... and failed
  kQuantizeCancelled,         // ... and was cancelled by a reload
  kCalibrationFrames,         // the calibration reservoir cannot keep its frames
  kPrecisionTrial,            // `precision: auto` starts measuring both precisions
  kPrecisionChosen,           // ... and chose one
  kMqttConnected,             // the MQTT broker accepted the connection
  kMqttUnreachable,           // the MQTT broker cannot be reached; retried
  kGpioLineUnavailable,       // a configured GPIO line cannot be requested
  kPrecisionButton,           // the precision button was pressed
  kObject,                    // a tracked object did something (tracking/object_event.h)
  kLogLinesLost,              // the field log had to drop lines while the disk failed
  kEventMediaSkipped,         // an event's snapshot or clip was not saved (disk full, budget)
  kInt8Checks,                // the live INT8 checks start, stop or cannot run (model, starved)
  kInt8Drift,                 // INT8's agreement with FP32 fell under the floor and was acted on
};

struct EventSpec {
  EventKind kind;
  std::string_view name;
  // Whether the daemon reports it at level error (counted in yolo_edge_errors_total{kind}).
  bool error;
};

// Every kind, in the order above.
std::span<const EventSpec> event_specs();
std::string_view event_name(EventKind kind);
// The kind named `name`; nullopt for a name this version does not know (a newer daemon's log).
std::optional<EventKind> event_kind(std::string_view name);
bool is_error(EventKind kind);

}  // namespace yolo::fieldlog
