// SPDX-License-Identifier: Apache-2.0
#include "cli/report/field_report.h"

#include "fieldlog/events.h"
#include "fieldlog/keys.h"
#include "runtime/engine/precision.h"
#include "telemetry/sample.h"
#include "text/format.h"
#include "text/time_format.h"
#include "tracking/vocabulary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace yolo::cli {

namespace {

using nlohmann::json;

// A pause between two lines longer than this (and than a fifth of an interval) is a gap: the
// daemon was not running, or a rotated file is missing.
constexpr double kMinGapS = 2.0;
std::optional<double> number_at(const json& line, const json::json_pointer& at) {
  if (!line.contains(at)) return std::nullopt;
  const json& v = line.at(at);
  if (!v.is_number()) return std::nullopt;
  return v.get<double>();
}

std::optional<double> number_at(const json& line, const char* key) {
  return number_at(line, json::json_pointer(std::string("/") + key));
}

std::string text_at(const json& line, const char* key) {
  const auto it = line.find(key);
  return it != line.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The hottest zone: temp_max_c, else the largest of temp_c.
std::optional<double> temperature(const json& line) {
  if (auto t = number_at(line, fieldlog::key::kTempMaxC)) return t;
  const auto it = line.find(telemetry::key::kTempC);
  if (it == line.end() || !it->is_object() || it->empty()) return std::nullopt;
  std::optional<double> hottest;
  for (const auto& [zone, c] : it->items()) {
    if (c.is_number()) hottest = std::max(hottest.value_or(-1e9), c.get<double>());
  }
  return hottest;
}

// The Pi firmware's Arm clock (it shows throttling), else the cores' mean requested clock.
std::optional<double> clock(const json& line) {
  if (auto arm = number_at(line, telemetry::key::kArmClockMhz)) return arm;
  const auto it = line.find(telemetry::key::kClockMhz);
  if (it == line.end() || !it->is_array() || it->empty()) return std::nullopt;
  double sum = 0;
  for (const auto& c : *it) {
    if (!c.is_number()) return std::nullopt;
    sum += c.get<double>();
  }
  return sum / static_cast<double>(it->size());
}

// Any of the Pi firmware's four "now" conditions, or nullopt off a Pi.
std::optional<bool> throttled(const json& line) {
  const auto it = line.find(telemetry::key::kThrottle);
  if (it == line.end() || !it->is_object()) return std::nullopt;
  bool any = false;
  for (const char* flag : telemetry::key::kThrottleConditions) {
    any = any || it->value(flag, false);
  }
  return any;
}

// One interval line, as the report reads it.
struct Interval {
  double start = 0, end = 0;
  std::string precision, model;
  long long frames = 0;
  double fps = 0;
  std::optional<int> threads;
  std::map<int, long long> frames_by_threads;
  std::optional<double> inference_p50, inference_p90, end_to_end_p90;
  std::optional<double> temp_c, clock_mhz, power_w, energy_per_frame_mj;
  std::optional<bool> throttled;
  // The live INT8 checks: the agreement at the interval's end, the checks done in it.
  std::optional<double> int8_agreement;
  std::optional<long long> int8_checks;
  bool gap_before = false;
};

Interval read_interval(const json& line, double end) {
  Interval i;
  i.end = end;
  i.start = end - number_at(line, fieldlog::key::kDurationS).value_or(0);
  i.precision = text_at(line, fieldlog::key::kPrecision);
  i.model = text_at(line, fieldlog::key::kModel);
  i.frames = static_cast<long long>(number_at(line, fieldlog::key::kFrames).value_or(0));
  i.fps = number_at(line, fieldlog::key::kFps).value_or(0);
  if (auto t = number_at(line, fieldlog::key::kThreads)) i.threads = static_cast<int>(*t);
  if (const auto it = line.find(fieldlog::key::kFramesByThreads);
      it != line.end() && it->is_object()) {
    for (const auto& [count, frames] : it->items()) {
      if (frames.is_number()) {
        i.frames_by_threads[std::atoi(count.c_str())] += frames.get<long long>();
      }
    }
  } else if (i.threads && i.frames > 0) {
    i.frames_by_threads[*i.threads] = i.frames;
  }
  i.inference_p50 = number_at(line, json::json_pointer("/latency_ms/inference/p50"));
  i.inference_p90 = number_at(line, json::json_pointer("/latency_ms/inference/p90"));
  i.end_to_end_p90 = number_at(line, json::json_pointer("/latency_ms/end_to_end/p90"));
  i.temp_c = temperature(line);
  i.clock_mhz = clock(line);
  i.throttled = throttled(line);
  i.power_w = number_at(line, fieldlog::key::kPowerW);
  i.energy_per_frame_mj = number_at(line, fieldlog::key::kEnergyPerFrameMj);
  i.int8_agreement = number_at(line, fieldlog::key::kInt8Agreement);
  if (auto n = number_at(line, fieldlog::key::kInt8Checks)) i.int8_checks = std::llround(*n);
  return i;
}

template <class T>
json or_null(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

// The middle value (the mean of the two middle ones for an even count); `values` not empty.
double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// A weighted mean gathered one value at a time.
struct Mean {
  double sum = 0, weight = 0;
  void add(const std::optional<double>& v, double w) {
    if (v && w > 0) {
      sum += *v * w;
      weight += w;
    }
  }
  std::optional<double> value() const {
    return weight > 0 ? std::optional<double>(sum / weight) : std::nullopt;
  }
};

PrecisionSummary summarize_precision(const std::string& precision,
                                     const std::vector<Interval>& intervals) {
  PrecisionSummary s;
  s.precision = precision;
  Mean inference, end_to_end, temp, clock_mhz, power;
  double energy_mj = 0;
  long long energy_frames = 0;
  std::vector<double> agreements;
  for (const auto& i : intervals) {
    if (i.precision != precision || i.frames == 0) continue;
    const double d = i.end - i.start;
    if (!i.model.empty() && std::find(s.models.begin(), s.models.end(), i.model) == s.models.end())
      s.models.push_back(i.model);
    s.seconds += d;
    s.frames += i.frames;
    const auto frames = static_cast<double>(i.frames);
    inference.add(i.inference_p90, frames);
    end_to_end.add(i.end_to_end_p90, frames);
    temp.add(i.temp_c, d);
    if (i.temp_c) s.temp_max_c = std::max(s.temp_max_c.value_or(-1e9), *i.temp_c);
    clock_mhz.add(i.clock_mhz, d);
    power.add(i.power_w, d);
    if (i.energy_per_frame_mj) {
      energy_mj += *i.energy_per_frame_mj * frames;
      energy_frames += i.frames;
    }
    if (i.throttled) {
      s.throttle_known_s += d;
      if (*i.throttled) s.throttled_s += d;
    }
    for (const auto& [threads, n] : i.frames_by_threads) s.frames_by_threads[threads] += n;
    if (i.int8_agreement) {
      agreements.push_back(*i.int8_agreement);
      s.agreement_last = i.int8_agreement;
    }
    if (i.int8_checks) s.int8_checks = s.int8_checks.value_or(0) + *i.int8_checks;
  }
  if (!agreements.empty()) {
    s.agreement_min = *std::min_element(agreements.begin(), agreements.end());
    s.agreement_median = median(agreements);
  }
  s.fps = s.seconds > 0 ? static_cast<double>(s.frames) / s.seconds : 0;
  s.inference_p90_ms = inference.value();
  s.end_to_end_p90_ms = end_to_end.value();
  s.temp_mean_c = temp.value();
  s.clock_mean_mhz = clock_mhz.value();
  s.power_w = power.value();
  if (energy_frames > 0) s.energy_per_frame_mj = energy_mj / static_cast<double>(energy_frames);
  return s;
}

// The field log's times (seconds since the epoch) as the report's tables show them.
bool any_of(const std::vector<Interval>& intervals, auto member) {
  return std::any_of(intervals.begin(), intervals.end(),
                     [&](const Interval& i) { return (i.*member).has_value(); });
}

// The sensors events' "missing" entries ("NAME: why") whose name holds one of `words`.
std::vector<std::string> sensors_missing(const std::vector<std::string>& missing,
                                         std::initializer_list<const char*> words) {
  std::vector<std::string> found;
  for (const auto& m : missing) {
    const std::string name = m.substr(0, m.find(':'));
    for (const char* w : words) {
      if (name.find(w) != std::string::npos) {
        found.push_back(m);
        break;
      }
    }
  }
  return found;
}

std::string because(const std::vector<std::string>& reasons) {
  return reasons.empty()
             ? ""
             : " The daemon's sensor inventory said: " + text::joined(reasons, "; ") + ".";
}

void note_missing(FieldReport& r, const std::vector<Interval>& intervals,
                  const std::vector<std::string>& sensors_missing_items,
                  const std::vector<std::string>& skipped) {
  long long frames = 0;
  double idle_s = 0;
  long long idle = 0;
  for (const auto& i : intervals) {
    frames += i.frames;
    if (i.frames == 0) {
      ++idle;
      idle_s += i.end - i.start;
    }
  }
  if (frames == 0) {
    r.missing.push_back(
        "No frames: every interval line has frames 0 (the source never delivered "
        "a frame while these logs were written), so there is nothing to compare.");
  }
  if (r.precisions.size() == 1) {
    const auto& p = r.precisions.front().precision;
    r.missing.push_back(
        "Only " + p +
        " ran in these logs, so precisions cannot be compared: switch with "
        "model.precision and a reload (SIGHUP), POST /api/precision or the precision button, "
        "and report on a log that covers both.");
  }
  if (!any_of(intervals, &Interval::temp_c)) {
    r.missing.push_back("No temperature: the device has no thermal zone the daemon could read." +
                        because(sensors_missing(sensors_missing_items, {"thermal"})));
  }
  if (!any_of(intervals, &Interval::clock_mhz)) {
    r.missing.push_back("No clock: neither cpufreq nor the Pi firmware gave one." +
                        because(sensors_missing(sensors_missing_items, {"clock"})));
  }
  if (!any_of(intervals, &Interval::throttled)) {
    r.missing.push_back(
        "No throttle flags: they come from the Raspberry Pi firmware (/dev/vcio), so this is "
        "not a Pi or the daemon could not open it; time throttled is n/a." +
        because(sensors_missing(sensors_missing_items, {"throttle", "firmware"})));
  }
  if (!any_of(intervals, &Interval::power_w)) {
    r.missing.push_back(
        "No power readings: the device has no power source the daemon could read (an INA2xx "
        "sensor, the Pi 5 PMIC, x86 RAPL), so W and mJ/frame are n/a and there is no power "
        "plot." +
        because(sensors_missing(sensors_missing_items,
                                {"RAPL", "rapl", "power", "PMIC", "pmic", "INA", "ina", "hwmon"})));
  } else if (!any_of(intervals, &Interval::energy_per_frame_mj)) {
    r.missing.push_back(
        "Power but no energy per frame: the power source gave fewer than two "
        "energy readings per interval.");
  }
  if (any_of(intervals, &Interval::int8_agreement) && r.floors.empty()) {
    r.missing.push_back(
        "No agreement floor: the INT8 checks' agreement is in these logs, but not "
        "model.auto_min_map50 (only precision_chosen and int8_drift events record it), so the "
        "plot draws no floor.");
  }
  if (r.decisions.empty()) {
    r.missing.push_back("No thread-count decisions (threads.mode fixed, or one thread at most).");
  }
  if (idle > 0 && frames > 0) {
    r.missing.push_back(std::to_string(idle) + " interval line(s) (" + text::duration_text(idle_s) +
                        ") without frames: the source was away or stopped; they count for the "
                        "device plots, not the precision table.");
  }
  if (!r.gaps.empty()) {
    double total = 0;
    for (const auto& g : r.gaps) total += g.end - g.start;
    r.missing.push_back(std::to_string(r.gaps.size()) + " gap(s) without any line (" +
                        text::duration_text(total) +
                        "): the daemon was not running, or a rotated file is missing; listed "
                        "below.");
  }
  for (const auto& s : skipped) r.missing.push_back("Skipped: " + s);
}

}  // namespace

std::optional<double> parse_utc(const std::string& text) {
  std::tm tm{};
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &consumed) != 6) {
    return std::nullopt;
  }
  double fraction = 0;
  std::size_t at = static_cast<std::size_t>(consumed);
  if (at < text.size() && text[at] == '.') {
    std::size_t end = at + 1;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
    if (end == at + 1) return std::nullopt;
    fraction = std::stod("0" + text.substr(at, end - at));
    at = end;
  }
  if (at + 1 != text.size() || text[at] != 'Z') return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  const std::time_t t = timegm(&tm);
  if (t == static_cast<std::time_t>(-1)) return std::nullopt;
  return static_cast<double>(t) + fraction;
}

namespace {

// Adds an "object" event line to its line's crossings or its zone's entries and loiters; the
// other kinds (new, leave, end) are only counted as object events.
void count_object_event(FieldReport& r, const json& line) {
  namespace k = fieldlog::key;
  const std::string type = text_at(line, k::kEventType);
  const std::string camera = text_at(line, k::kCamera);
  const std::string label = text_at(line, k::kLabel);
  if (type == tracking::event_kind_name(tracking::ObjectEventKind::kCross)) {
    const std::string name = text_at(line, k::kLine);
    auto it = std::find_if(r.crossings.begin(), r.crossings.end(),
                           [&](const auto& c) { return c.camera == camera && c.line == name; });
    if (it == r.crossings.end())
      it = r.crossings.insert(it, LineCrossings{.camera = camera, .line = name, .by_label = {}});
    auto& by_label = it->by_label[label];
    if (text_at(line, k::kDirection) == tracking::direction_name(tracking::Direction::kIn)) {
      ++it->in;
      ++by_label.first;
    } else {
      ++it->out;
      ++by_label.second;
    }
    return;
  }
  const bool enter = type == tracking::event_kind_name(tracking::ObjectEventKind::kEnter);
  const bool loiter = type == tracking::event_kind_name(tracking::ObjectEventKind::kLoiter);
  if (!enter && !loiter) return;
  const std::string name = text_at(line, k::kZone);
  auto it = std::find_if(r.zones.begin(), r.zones.end(),
                         [&](const auto& z) { return z.camera == camera && z.zone == name; });
  if (it == r.zones.end())
    it = r.zones.insert(it, ZoneActivity{.camera = camera, .zone = name, .entries_by_label = {}});
  if (enter) {
    ++it->entries;
    ++it->entries_by_label[label];
  } else {
    ++it->loiters;
  }
}

// "car 30, person 2" (in or out only, with `pick`).
}  // namespace

FieldReport build_field_report(const std::vector<json>& lines,
                               const std::vector<std::string>& skipped) {
  FieldReport r;
  std::vector<Interval> intervals;
  std::vector<std::string> sensors_missing_items;
  std::vector<std::string> skipped_all = skipped;
  long long untimed = 0;
  for (const auto& line : lines) {
    const auto time = parse_utc(text_at(line, fieldlog::key::kTime));
    if (!time) {
      ++untimed;
      continue;
    }
    const std::string type = text_at(line, fieldlog::key::kType);
    if (type == fieldlog::kIntervalLine) {
      ++r.interval_lines;
      intervals.push_back(read_interval(line, *time));
      if (const auto cameras = line.find(fieldlog::key::kCameras);
          cameras != line.end() && cameras->is_object()) {
        const double seconds = number_at(line, fieldlog::key::kDurationS).value_or(0);
        for (const auto& [name, c] : cameras->items()) {
          auto it = std::find_if(r.cameras.begin(), r.cameras.end(),
                                 [&](const CameraSummary& s) { return s.name == name; });
          if (it == r.cameras.end()) it = r.cameras.insert(r.cameras.end(), {name, 0, 0, 0});
          it->frames += static_cast<long long>(number_at(c, fieldlog::key::kFrames).value_or(0));
          it->skipped += static_cast<long long>(number_at(c, "skipped").value_or(0));
          it->seconds += seconds;
        }
      }
      const std::string host = text_at(line, fieldlog::key::kHost);
      if (!host.empty() && std::find(r.hosts.begin(), r.hosts.end(), host) == r.hosts.end())
        r.hosts.push_back(host);
      continue;
    }
    if (type != fieldlog::kEventLine) continue;
    ++r.event_lines;
    // A kind this version does not know (a newer daemon's) is counted and otherwise skipped.
    const std::optional<fieldlog::EventKind> event =
        fieldlog::event_kind(text_at(line, fieldlog::key::kEvent));
    if (event == fieldlog::EventKind::kThreads) {
      ThreadDecisionEvent d;
      d.time = *time;
      d.from = static_cast<int>(number_at(line, fieldlog::key::kFrom).value_or(0));
      d.to = static_cast<int>(number_at(line, fieldlog::key::kTo).value_or(0));
      d.kind = text_at(line, fieldlog::key::kKind);
      d.reason = text_at(line, fieldlog::key::kReason);
      r.decisions.push_back(std::move(d));
    } else if (event == fieldlog::EventKind::kSwap) {
      r.swaps.push_back({{"time", *time},
                         {"from", text_at(line, fieldlog::key::kFromPrecision)},
                         {"to", text_at(line, fieldlog::key::kToPrecision)},
                         {"from_model", text_at(line, fieldlog::key::kFrom)},
                         {"to_model", text_at(line, fieldlog::key::kTo)},
                         {"frames_lost", line.value(fieldlog::key::kFramesLost, json(nullptr))},
                         {"gap_ms", line.value(fieldlog::key::kGapMs, json(nullptr))}});
    } else if (event == fieldlog::EventKind::kPrecisionChosen) {
      json c = {{"time", *time},
                {"precision", text_at(line, fieldlog::key::kPrecision)},
                {"reason", text_at(line, fieldlog::key::kReason)}};
      namespace k = fieldlog::key;
      for (const char* key :
           {k::kFp32Ms, k::kFp32Threads, k::kInt8Ms, k::kInt8Threads, k::kSpeedup, k::kMap50}) {
        c[key] = line.value(key, json(nullptr));
      }
      r.choices.push_back(std::move(c));
      if (auto floor = number_at(line, k::kMinMap50)) r.floors.push_back({*time, *floor});
    } else if (event == fieldlog::EventKind::kInt8Drift ||
               event == fieldlog::EventKind::kInt8Checks) {
      namespace k = fieldlog::key;
      r.int8_events.push_back({.time = *time,
                               .event = text_at(line, k::kEvent),
                               .phase = text_at(line, k::kPhase),
                               .action = text_at(line, k::kAction),
                               .message = text_at(line, k::kMessage)});
      if (auto floor = number_at(line, k::kMinMap50)) r.floors.push_back({*time, *floor});
    } else if (event == fieldlog::EventKind::kObject) {
      ++r.object_events;
      count_object_event(r, line);
    } else if (event == fieldlog::EventKind::kSensors) {
      if (const auto it = line.find(fieldlog::key::kMissing); it != line.end() && it->is_array()) {
        for (const auto& m : *it) {
          if (m.is_string() && std::find(sensors_missing_items.begin(), sensors_missing_items.end(),
                                         m.get<std::string>()) == sensors_missing_items.end()) {
            sensors_missing_items.push_back(m.get<std::string>());
          }
        }
      }
    }
  }
  if (intervals.empty()) {
    throw std::invalid_argument("no interval lines with a time: nothing to report");
  }
  std::sort(r.cameras.begin(), r.cameras.end(),
            [](const CameraSummary& a, const CameraSummary& b) { return a.name < b.name; });
  std::sort(r.crossings.begin(), r.crossings.end(), [](const auto& a, const auto& b) {
    return std::tie(a.camera, a.line) < std::tie(b.camera, b.line);
  });
  std::sort(r.zones.begin(), r.zones.end(), [](const auto& a, const auto& b) {
    return std::tie(a.camera, a.zone) < std::tie(b.camera, b.zone);
  });
  if (untimed > 0) {
    skipped_all.push_back(std::to_string(untimed) + " line(s) without a readable \"time\"");
  }
  // Files given out of order, or rotated ones listed after the current one, still read in time.
  std::stable_sort(intervals.begin(), intervals.end(),
                   [](const Interval& a, const Interval& b) { return a.end < b.end; });
  std::stable_sort(r.decisions.begin(), r.decisions.end(),
                   [](const auto& a, const auto& b) { return a.time < b.time; });
  std::stable_sort(r.int8_events.begin(), r.int8_events.end(),
                   [](const auto& a, const auto& b) { return a.time < b.time; });
  std::stable_sort(r.floors.begin(), r.floors.end(),
                   [](const auto& a, const auto& b) { return a.time < b.time; });
  for (std::size_t k = 1; k < intervals.size(); ++k) {
    const double pause = intervals[k].start - intervals[k - 1].end;
    if (pause > std::max(kMinGapS, 0.2 * (intervals[k].end - intervals[k].start))) {
      intervals[k].gap_before = true;
      r.gaps.push_back({intervals[k - 1].end, intervals[k].start});
    }
  }
  r.first = intervals.front().start;
  r.last = intervals.back().end;

  std::vector<std::string> names;
  for (const auto& i : intervals) {
    if (i.frames > 0 && !i.precision.empty() &&
        std::find(names.begin(), names.end(), i.precision) == names.end()) {
      names.push_back(i.precision);
    }
  }
  // FP32 first, the reference.
  std::stable_sort(names.begin(), names.end(),
                   [fp32 = runtime::precision_name(runtime::Precision::kFp32)](
                       const auto& a, const auto& b) { return a == fp32 && b != fp32; });
  for (const auto& name : names) r.precisions.push_back(summarize_precision(name, intervals));
  note_missing(r, intervals, sensors_missing_items, skipped_all);

  json rows = json::array();
  for (const auto& i : intervals) {
    json frames_by_threads = json::object();
    for (const auto& [t, n] : i.frames_by_threads) frames_by_threads[std::to_string(t)] = n;
    rows.push_back({{"start", i.start},
                    {"end", i.end},
                    {"precision", i.precision.empty() ? json(nullptr) : json(i.precision)},
                    {"frames", i.frames},
                    {"fps", i.fps},
                    {"threads", i.threads ? json(*i.threads) : json(nullptr)},
                    {"inference_p50_ms", or_null(i.inference_p50)},
                    {"inference_p90_ms", or_null(i.inference_p90)},
                    {"end_to_end_p90_ms", or_null(i.end_to_end_p90)},
                    {"temp_c", or_null(i.temp_c)},
                    {"clock_mhz", or_null(i.clock_mhz)},
                    {"throttled", i.throttled ? json(*i.throttled) : json(nullptr)},
                    {"power_w", or_null(i.power_w)},
                    {"energy_per_frame_mj", or_null(i.energy_per_frame_mj)},
                    {"int8_agreement", or_null(i.int8_agreement)},
                    {"int8_checks", or_null(i.int8_checks)},
                    {"gap_before", i.gap_before}});
  }
  json decisions = json::array();
  for (const auto& d : r.decisions) {
    decisions.push_back({{"time", d.time}, {"from", d.from}, {"to", d.to}, {"kind", d.kind}});
  }
  json int8_events = json::array();
  for (const auto& e : r.int8_events) {
    int8_events.push_back(
        {{"time", e.time}, {"event", e.event}, {"phase", e.phase}, {"action", e.action}});
  }
  json floors = json::array();
  for (const auto& f : r.floors) floors.push_back({{"time", f.time}, {"min_map50", f.min_map50}});
  r.timeline = {{"hosts", r.hosts},           {"precisions", names}, {"intervals", rows},
                {"decisions", decisions},     {"swaps", r.swaps},    {"choices", r.choices},
                {"int8_events", int8_events}, {"floors", floors}};
  return r;
}

}  // namespace yolo::cli
