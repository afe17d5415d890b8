// SPDX-License-Identifier: Apache-2.0
#pragma once

// The keys of the field log's lines that the daemon (and the detector's and telemetry's parts of
// its events) write and yolo-edge reads back, each named once (docs/field-log.md describes them;
// the device's own readings, such as temp_c or clock_mhz, are telemetry's: telemetry/sample.h).

namespace yolo::fieldlog {

// The two kinds of line, the value of key::kType.
inline constexpr char kIntervalLine[] = "interval";
inline constexpr char kEventLine[] = "event";

namespace key {

// Every line.
inline constexpr char kType[] = "type";
inline constexpr char kTime[] = "time";

// Event lines: the kind's name (fieldlog/events.h).
inline constexpr char kEvent[] = "event";

// Interval lines.
inline constexpr char kDurationS[] = "duration_s";
inline constexpr char kHost[] = "host";
inline constexpr char kModel[] = "model";
inline constexpr char kPrecision[] = "precision";
inline constexpr char kInput[] = "input";
inline constexpr char kThreads[] = "threads";
inline constexpr char kFramesByThreads[] = "frames_by_threads";
inline constexpr char kFrames[] = "frames";
inline constexpr char kFps[] = "fps";
inline constexpr char kDropped[] = "dropped";
// Per camera, in a daemon of several: {"NAME": {"frames", "fps", "skipped", "frame_first",
// "frame_last"}}.
inline constexpr char kCameras[] = "cameras";
inline constexpr char kUnlogged[] = "unlogged";
inline constexpr char kFrameFirst[] = "frame_first";
inline constexpr char kFrameLast[] = "frame_last";
inline constexpr char kLatencyMs[] = "latency_ms";
inline constexpr char kResultGapMs[] = "result_gap_ms";
inline constexpr char kDetections[] = "detections";
inline constexpr char kTelemetrySamples[] = "telemetry_samples";
inline constexpr char kCpuBusy[] = "cpu_busy";
inline constexpr char kCpuBusyTotal[] = "cpu_busy_total";
inline constexpr char kTempMaxC[] = "temp_max_c";
inline constexpr char kPowerW[] = "power_w";
inline constexpr char kEnergyPerFrameMj[] = "energy_per_frame_mj";
// The live INT8 checks: the agreement at the interval's end, and the checks done in it.
inline constexpr char kInt8Agreement[] = "int8_agreement";
inline constexpr char kInt8Checks[] = "int8_checks";

// Fields of the events the report reads.
// threads: the count before and after, what kind of decision, why.
inline constexpr char kFrom[] = "from";
inline constexpr char kTo[] = "to";
inline constexpr char kKind[] = "kind";
inline constexpr char kReason[] = "reason";
// swap: kFrom and kTo are the models; their precisions, and what the swap cost.
inline constexpr char kFromPrecision[] = "from_precision";
inline constexpr char kToPrecision[] = "to_precision";
inline constexpr char kFramesLost[] = "frames_lost";
inline constexpr char kGapMs[] = "gap_ms";
// precision_chosen: kPrecision and kReason, and each precision's measured figures.
inline constexpr char kFp32Ms[] = "fp32_ms";
inline constexpr char kFp32Threads[] = "fp32_threads";
inline constexpr char kInt8Ms[] = "int8_ms";
inline constexpr char kInt8Threads[] = "int8_threads";
inline constexpr char kSpeedup[] = "speedup";
inline constexpr char kMap50[] = "map50";
// precision_chosen, int8_drift: the agreement floor (model.auto_min_map50) they judged against.
inline constexpr char kMinMap50[] = "min_map50";
// int8_drift: the drift watch's phase after the event and the configured action; every event's
// sentence.
inline constexpr char kPhase[] = "phase";
inline constexpr char kAction[] = "action";
inline constexpr char kMessage[] = "message";
// sensors: the sensors this device lacks.
inline constexpr char kMissing[] = "missing";
// object: a tracked object's event (tracking::to_json's keys; its "type" as kEventType): what it
// did, on which camera, in which zone or across which line, which way, and the object's class.
inline constexpr char kEventType[] = "event_type";
inline constexpr char kCamera[] = "camera";
inline constexpr char kZone[] = "zone";
inline constexpr char kLine[] = "line";
inline constexpr char kDirection[] = "direction";
inline constexpr char kLabel[] = "label";

}  // namespace key
}  // namespace yolo::fieldlog
