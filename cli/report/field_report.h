// SPDX-License-Identifier: Apache-2.0
#pragma once

// What `yolo-edge report` makes of the daemon's field logs (docs/field-log.md): per precision
// the figures a person comparing FP32 and INT8 on a device wants, the timeline the plot script
// draws, and what the logs could not tell.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace yolo::cli {

// One precision's share of the logs (interval lines with frames).
struct PrecisionSummary {
  std::string precision;
  // The models it ran (file stems), in the order first seen.
  std::vector<std::string> models;
  // Seconds of intervals with frames, and their frames.
  double seconds = 0;
  long long frames = 0;
  double fps = 0;
  // Frame-weighted means of the intervals' p90 (inference, capture to result), ms.
  std::optional<double> inference_p90_ms, end_to_end_p90_ms;
  // Time-weighted mean of the hottest zone, and its highest reading, C.
  std::optional<double> temp_mean_c, temp_max_c;
  // Time-weighted mean clock (the Pi firmware's Arm clock, else the cores' mean), MHz.
  std::optional<double> clock_mean_mhz;
  // Time-weighted mean power, W; energy per frame over the intervals that measured it, mJ.
  std::optional<double> power_w, energy_per_frame_mj;
  // Seconds with a throttle condition now (under-voltage, capped, throttled, soft limit), over the
  // seconds that carried throttle flags at all (none off a Pi).
  double throttled_s = 0;
  double throttle_known_s = 0;
  // Frames per inference thread count.
  std::map<int, long long> frames_by_threads;
  // The live INT8 checks (int8_agreement and int8_checks of its intervals): the agreement with
  // FP32 at the intervals' ends, lowest, median and last, and the checks done; nullopt when no
  // interval of this precision carried them (checks off, an older daemon), never 0.
  std::optional<double> agreement_min, agreement_median, agreement_last;
  std::optional<long long> int8_checks;
};

// An event of the live INT8 checks: int8_drift (phase warned, fp32, agrees: the agreement stayed
// under the floor and was acted on, or agrees again) or int8_checks (they cannot run, starved).
struct Int8CheckEvent {
  double time = 0;
  std::string event, phase, action, message;
};

// The agreement floor (model.auto_min_map50) as a line of the logs recorded it: min_map50 of a
// precision_chosen or int8_drift event.
struct AgreementFloor {
  double time = 0;
  double min_map50 = 0;
};

// A thread-count decision (event "threads").
struct ThreadDecisionEvent {
  double time = 0;
  int from = 0, to = 0;
  std::string kind, reason;
};

// A time the logs have no line for (the daemon was stopped, or a rotated file is gone).
struct LogGap {
  double start = 0, end = 0;
};

// What one counting line's crossings were ("object" event lines of type cross), by direction.
struct LineCrossings {
  std::string camera, line;
  long long in = 0, out = 0;
  // By class label: {in, out}.
  std::map<std::string, std::pair<long long, long long>> by_label;
};

// What happened in one zone ("object" event lines of type enter and loiter).
struct ZoneActivity {
  std::string camera, zone;
  long long entries = 0, loiters = 0;
  // Entries by class label.
  std::map<std::string, long long> entries_by_label;
};

// One camera of a daemon of several (the interval lines' "cameras"): its frames detected and the
// turns it skipped over the seconds of the lines that name it.
struct CameraSummary {
  std::string name;
  long long frames = 0, skipped = 0;
  double seconds = 0;
};

struct FieldReport {
  // Seconds since the epoch (UTC) of the first interval's start and the last line.
  double first = 0, last = 0;
  long long interval_lines = 0, event_lines = 0;
  std::vector<std::string> hosts;
  std::vector<PrecisionSummary> precisions;
  std::vector<ThreadDecisionEvent> decisions;
  // By name (in name order); empty for a daemon of one camera.
  std::vector<CameraSummary> cameras;
  std::vector<LogGap> gaps;
  // Precision switches: {time, from, to}.
  nlohmann::json swaps = nlohmann::json::array();
  // precision: auto's decisions (precision_chosen events): {time, precision, reason, fp32_ms,
  // fp32_threads, int8_ms, int8_threads, speedup, map50}.
  nlohmann::json choices = nlohmann::json::array();
  // The live INT8 checks' events, and the floors the logs recorded, in time order.
  std::vector<Int8CheckEvent> int8_events;
  std::vector<AgreementFloor> floors;
  // Tracked objects' events ("object" event lines), and the lines' and zones' share of them,
  // ordered by camera and name.
  long long object_events = 0;
  std::vector<LineCrossings> crossings;
  std::vector<ZoneActivity> zones;
  // What the logs could not tell, one sentence each.
  std::vector<std::string> missing;
  // What the plot script draws (see scripts/field-report.py).
  nlohmann::json timeline;
};

// Builds the report from field-log lines in time order. `skipped` are the reader's warnings
// about lines it could not use; they are listed under missing. Throws std::invalid_argument when
// there is no interval line.
FieldReport build_field_report(const std::vector<nlohmann::json>& lines,
                               const std::vector<std::string>& skipped);

// report.md: the precision table (with the INT8 checks' agreement when the logs have it), the
// plots (`plots`: file name -> caption, in order), thread decisions, switches, the INT8 checks'
// events, crossings per line and direction and entries and loiters per zone (when
// the logs have object events), gaps and what is missing. `sources` names the files read.
std::string field_report_markdown(const FieldReport& report,
                                  const std::vector<std::pair<std::string, std::string>>& plots,
                                  const std::vector<std::string>& sources);

// "2026-11-23T19:40:17.530Z" as seconds since the epoch, or nullopt when it is not that form.
std::optional<double> parse_utc(const std::string& text);

}  // namespace yolo::cli
