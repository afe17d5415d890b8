// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/metrics/metrics_output.h"

#include "daemon/core/events.h"

#include <prometheus/check_names.h>
#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include "daemon/base/version.h"
#include "daemon/outputs/metrics/metric_families.h"
#include "daemon/outputs/metrics/tracking_series.h"
#include "text/format.h"
#include "tracking/vocabulary.h"

namespace yolo::daemon {

namespace {

using namespace metrics;
using prometheus::Counter;
using prometheus::Family;
using prometheus::Gauge;
using prometheus::Histogram;
using json = nlohmann::json;

// Stage latencies on a Pi run from about a millisecond (preprocessing, postprocessing) through
// tens of milliseconds (inference) to seconds (an INT8 model on a throttled Pi 4, a frame that
// waited through a swap).
const Histogram::BucketBoundaries kLatencyBuckets = {
    0.001, 0.0025, 0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1, 2, 5};

// One condition of the Pi's throttle word: its "condition" label and its two bits.
struct ThrottleCondition {
  const char* name;
  bool (telemetry::ThrottleState::*now)() const;
  bool (telemetry::ThrottleState::*since_boot)() const;
};
constexpr std::array<ThrottleCondition, 4> kThrottleConditions{
    {{"under_voltage", &telemetry::ThrottleState::under_voltage,
      &telemetry::ThrottleState::under_voltage_since_boot},
     {"frequency_capped", &telemetry::ThrottleState::frequency_capped,
      &telemetry::ThrottleState::frequency_capped_since_boot},
     {"throttled", &telemetry::ThrottleState::throttled,
      &telemetry::ThrottleState::throttled_since_boot},
     {"soft_temp_limit", &telemetry::ThrottleState::soft_temp_limit,
      &telemetry::ThrottleState::soft_temp_limit_since_boot}}};

prometheus::Labels clean(const MetricsOutput::Labels& labels) {
  prometheus::Labels out;
  for (const auto& [name, value] : labels) {
    if (!prometheus::CheckLabelName(name)) {
      throw std::invalid_argument("metrics: '" + name + "' is not a valid label name");
    }
    out.emplace(name, valid_utf8(value));
  }
  return out;
}

// A state as a gauge family: one series per state seen ("state" label), 1 for the current state
// and 0 for the others, so a dashboard can show and alert on each.
class StateGauge {
 public:
  explicit StateGauge(Family<Gauge>& family) : family_(family) {}

  void set(const std::string& state) {
    const std::string value = valid_utf8(state);
    if (!states_.contains(value)) states_.emplace(value, &family_.Add({{"state", value}}));
    for (const auto& [name, gauge] : states_) gauge->Set(name == value ? 1 : 0);
  }

 private:
  Family<Gauge>& family_;
  std::map<std::string, Gauge*> states_;
};

// The per-frame series of one model at one precision, looked up once per model instead of once
// per frame.
struct FrameSeries {
  // Held so the pointer compared against each frame's model stays this model's (a freed
  // ModelInfo's address could be reused by the next).
  std::shared_ptr<const ModelInfo> model;
  Counter* frames = nullptr;
  std::array<Histogram*, kStages.size()> stages{};
  // By class id, created when the class is first detected.
  std::vector<Counter*> detections;
};

}  // namespace

struct MetricsOutput::State {
  State() {
    build_info.update({{{{"version", valid_utf8(version())}}, 1}});
    // Known from the start, at 0: a dashboard's rate() of them shows 0 rather than "No data"
    // until the first error.
    for (const fieldlog::EventSpec& e : fieldlog::event_specs()) {
      if (e.error) errors.Add({{"kind", std::string(e.name)}});
    }
  }

  // The series of `model`, created at its first frame.
  FrameSeries series_of(std::shared_ptr<const ModelInfo> model) {
    FrameSeries s;
    const prometheus::Labels labels = {{"model", valid_utf8(model->name)},
                                       {"precision", runtime::precision_name(model->precision)}};
    s.frames = &frames.Add(labels);
    for (std::size_t i = 0; i < kStages.size(); ++i) {
      prometheus::Labels stage = labels;
      stage.emplace("stage", std::string(kStages[i].name));
      s.stages[i] = &latency.Add(stage, kLatencyBuckets);
    }
    s.detections.assign(model->names.size(), nullptr);
    s.model = std::move(model);
    return s;
  }

  Counter& detection(FrameSeries& s, int class_id) {
    const auto add = [&] {
      return &detections.Add({{"model", valid_utf8(s.model->name)},
                              {"precision", runtime::precision_name(s.model->precision)},
                              {"label", valid_utf8(s.model->names.name(class_id))}});
    };
    if (class_id < 0) return *add();
    const auto index = static_cast<std::size_t>(class_id);
    if (index >= s.detections.size()) s.detections.resize(index + 1, nullptr);
    if (!s.detections[index]) s.detections[index] = add();
    return *s.detections[index];
  }

  prometheus::Registry registry;

  // Each family is registered where it is declared, its kind, name and help in one place. They
  // register in declaration order (the tracking series' between threads and build_info), which
  // is the order /metrics lists the families of a kind in.
  Family<Counter>& frames = counter_family(registry, "yolo_edge_frames_total",
                                           "Frames processed, by model and precision.");
  Family<Counter>& detections =
      counter_family(registry, "yolo_edge_detections_total",
                     "Objects detected, by model, precision and class label.");
  Counter& dropped = counter_family(registry, "yolo_edge_dropped_frames_total",
                                    "Frames the capture replaced before inference took them.")
                         .Add({});
  Family<Counter>& reloads =
      counter_family(registry, "yolo_edge_reloads_total",
                     "Config reloads, by result (ok, or rejected and the previous config kept).");
  Counter& reloads_ok = reloads.Add({{"result", "ok"}});
  Counter& reloads_rejected = reloads.Add({{"result", "rejected"}});
  Counter& swaps =
      counter_family(registry, "yolo_edge_model_swaps_total",
                     "Models swapped in while running (precision switch, new model file).")
          .Add({});
  Counter& source_lost = counter_family(registry, "yolo_edge_source_lost_total",
                                        "Times the source could not be opened or stopped "
                                        "delivering frames and a retry was scheduled.")
                             .Add({});
  Counter& source_reopened =
      counter_family(registry, "yolo_edge_source_reopened_total",
                     "Times the source was opened again after a failure or a change of source.")
          .Add({});
  Family<Counter>& errors =
      counter_family(registry, "yolo_edge_errors_total",
                     "Errors the daemon reported, by kind (the event's name).");
  Family<Counter>& energy = counter_family(
      registry, "yolo_edge_energy_joules_total",
      "Energy the preferred power source counted (RAPL, or power integrated over time).");
  Family<Histogram>& latency =
      prometheus::BuildHistogram()
          .Name("yolo_edge_stage_latency_seconds")
          .Help(help_text("Time each stage of a frame took (capture_age: how long the frame waited "
                          "for inference; end_to_end: capture to result), by model and precision."))
          .Register(registry);
  Gauge& threads = gauge_family(registry, "yolo_edge_inference_threads",
                                "Threads the inference of the last frame ran on.")
                       .Add({});

  // The series of the model of the last frame and the tracking series; guarded by frame_mutex,
  // which only publish() takes, so the inference thread never waits on the other calls.
  std::mutex frame_mutex;
  FrameSeries series;
  TrackingSeries tracking{registry};

  // Guards everything below.
  std::mutex mutex;
  GaugeSnapshot build_info{gauge_family(registry, "yolo_edge_build_info",
                                        "Always 1; the version of yolo-edged as a label.")};
  Gauge* start_time_gauge = nullptr;
  Family<Gauge>& start_time =
      gauge_family(registry, "yolo_edge_start_time_seconds",
                   "When yolo-edged started, in seconds since the Unix epoch.");
  GaugeSnapshot fps{gauge_family(registry, "yolo_edge_fps",
                                 "Frames per second over the daemon's last measuring interval.")};
  StateGauge state{gauge_family(
      registry, "yolo_edge_state",
      "1 for the daemon's current state (starting, running, reloading), 0 for the others seen.")};
  // By camera: 1 for its state now, 0 for the others it was seen in.
  GaugeSnapshot source_state{gauge_family(registry, "yolo_edge_source_state",
                                          "1 for each camera's source's current state (streaming, "
                                          "opening, lost, stopped), 0 for the others seen.")};
  std::map<std::string, std::set<std::string>> source_states_seen;
  GaugeSnapshot camera_fps{gauge_family(registry, "yolo_edge_camera_fps",
                                        "Frames per second each camera's source delivers.")};
  GaugeSnapshot detection_fps{
      gauge_family(registry, "yolo_edge_detection_fps", "Frames per second detected, by camera.")};
  GaugeSnapshot skipped_fps{
      gauge_family(registry, "yolo_edge_skipped_fps",
                   "Turns per second each camera missed (a frame due for detection found "
                   "inference busy).")};
  // Cameras with motion on only (docs/cameras.md), over each one's last 100 frames.
  GaugeSnapshot motion_ms{
      gauge_family(registry, "yolo_edge_motion_ms",
                   "Median time the motion detector took per frame, by camera.")};
  GaugeSnapshot model_runs_per_frame{
      gauge_family(registry, "yolo_edge_model_runs_per_frame",
                   "Model runs per detected frame, by camera with motion on: 1 a whole frame, 1 "
                   "per motion crop, 0 a still frame.")};
  GaugeSnapshot still_share{
      gauge_family(registry, "yolo_edge_still_frame_share",
                   "Share of frames nothing moved in (no model run), by camera with motion on.")};
  GaugeSnapshot model_info{
      gauge_family(registry, "yolo_edge_model_info",
                   "Always 1; the model running, its precision and its file as labels.")};
  GaugeSnapshot temperature{
      gauge_family(registry, "yolo_edge_temperature_celsius", "Temperature of each thermal zone.")};
  GaugeSnapshot cpu_frequency{
      gauge_family(registry, "yolo_edge_cpu_frequency_hertz",
                   "Clock the kernel last requested for each core (scaling_cur_freq).")};
  GaugeSnapshot arm_clock{gauge_family(registry, "yolo_edge_arm_clock_hertz",
                                       "Arm clock the Raspberry Pi firmware measures (shows "
                                       "firmware throttling, unlike the kernel's).")};
  GaugeSnapshot throttle_active{gauge_family(
      registry, "yolo_edge_throttle_active",
      "1 while the Raspberry Pi firmware reports the condition (get_throttled bits 0-3).")};
  GaugeSnapshot throttle_since_boot{gauge_family(
      registry, "yolo_edge_throttle_since_boot",
      "1 when the Raspberry Pi firmware saw the condition since boot (get_throttled bits 16-19).")};
  GaugeSnapshot under_voltage_alarm{
      gauge_family(registry, "yolo_edge_under_voltage_alarm",
                   "1 while the Pi's rpi_volt sensor raises its under-voltage alarm.")};
  GaugeSnapshot power{gauge_family(
      registry, "yolo_edge_power_watts",
      "Power drawn, from the preferred source (external sensor, then Pi 5 PMIC, then RAPL).")};
  GaugeSnapshot power_sources{
      gauge_family(registry, "yolo_edge_power_source_watts", "Power each source measures.")};
  GaugeSnapshot cpu_busy{gauge_family(registry, "yolo_edge_cpu_busy_ratio",
                                      "Share of all cores busy since the previous sample (0-1).")};
  GaugeSnapshot cpu_core_busy{
      gauge_family(registry, "yolo_edge_cpu_core_busy_ratio",
                   "Share of each core busy since the previous sample (0-1).")};
  GaugeSnapshot resident_memory{
      gauge_family(registry, "yolo_edge_resident_memory_bytes", "Resident memory of yolo-edged.")};
  // The energy counter's series and the sampler's count it last added up to.
  Counter* energy_total = nullptr;
  std::optional<double> energy_seen;
  // Families added through add_counter and set_gauge, by name.
  std::map<std::string, Family<Counter>*> custom_counters;
  std::map<std::string, Family<Gauge>*> custom_gauges;

  std::atomic<std::int64_t> scrapes{0};

  // The outputs asked for their own series at every render, and where they set them (the
  // MetricsOutput itself: render() is const to its callers, the series it brings up to date are
  // not).
  std::vector<const Publisher*> outputs;
  MetricsSink* sink = nullptr;
};

MetricsOutput::MetricsOutput() : state_(std::make_unique<State>()) {
  state_->sink = this;
}

MetricsOutput::~MetricsOutput() = default;

void MetricsOutput::publish(std::shared_ptr<const FrameResult> result) {
  if (!result || !result->model) return;
  State& s = *state_;
  std::lock_guard lock(s.frame_mutex);
  if (result->frameless) {
    s.tracking.follow(*result);
    return;
  }
  if (s.series.model != result->model) s.series = s.series_of(result->model);
  FrameSeries& series = s.series;
  series.frames->Increment();
  for (std::size_t i = 0; i < kStages.size(); ++i) {
    series.stages[i]->Observe(result->times.*kStages[i].ms / 1000.0);
  }
  for (const auto& d : result->detections) s.detection(series, d.class_id).Increment();
  if (result->dropped > 0) s.dropped.Increment(static_cast<double>(result->dropped));
  s.threads.Set(result->threads);
  s.tracking.follow(*result);
}

void MetricsOutput::telemetry(const telemetry::Sample& sample) {
  State& s = *state_;
  GaugeSnapshot::Values temperatures, clocks, power_sources, core_busy, active, since_boot;
  for (const auto& t : sample.thermal) {
    temperatures.push_back(
        {{{"zone", valid_utf8(t.zone)}, {"type", valid_utf8(t.type)}}, t.celsius});
  }
  for (const auto& c : sample.clocks) {
    clocks.push_back({{{"cpu", std::to_string(c.cpu)}}, c.mhz * 1e6});
  }
  for (const auto& p : sample.power) {
    power_sources.push_back({{{"source", valid_utf8(p.source)}}, p.watts});
  }
  for (std::size_t cpu = 0; cpu < sample.cpu_busy.size(); ++cpu) {
    core_busy.push_back({{{"cpu", std::to_string(cpu)}}, sample.cpu_busy[cpu]});
  }
  if (sample.throttle) {
    for (const auto& c : kThrottleConditions) {
      active.push_back({{{"condition", c.name}}, (*sample.throttle.*c.now)() ? 1.0 : 0.0});
      since_boot.push_back(
          {{{"condition", c.name}}, (*sample.throttle.*c.since_boot)() ? 1.0 : 0.0});
    }
  }
  const auto mhz_to_hertz = [](std::optional<double> mhz) {
    return mhz ? std::optional<double>(*mhz * 1e6) : std::nullopt;
  };
  const auto flag = [](std::optional<bool> on) {
    return on ? std::optional<double>(*on ? 1 : 0) : std::nullopt;
  };

  std::lock_guard lock(s.mutex);
  s.temperature.update(temperatures);
  s.cpu_frequency.update(clocks);
  s.arm_clock.update(mhz_to_hertz(sample.arm_clock_mhz));
  s.throttle_active.update(active);
  s.throttle_since_boot.update(since_boot);
  s.under_voltage_alarm.update(flag(sample.under_voltage_alarm));
  s.power.update(sample.power_w);
  s.power_sources.update(power_sources);
  s.cpu_busy.update(sample.cpu_busy_total);
  s.cpu_core_busy.update(core_busy);
  s.resident_memory.update(sample.rss_bytes ? std::optional<double>(*sample.rss_bytes)
                                            : std::nullopt);
  if (sample.energy_j && std::isfinite(*sample.energy_j)) {
    const double count = *sample.energy_j;
    // The sampler counts from its own start, and starts again when the telemetry settings
    // change: a count below the last one is all new energy.
    const double added = s.energy_seen && count >= *s.energy_seen ? count - *s.energy_seen : count;
    if (!s.energy_total) s.energy_total = &s.energy.Add({});
    if (added > 0) s.energy_total->Increment(added);
    s.energy_seen = count;
  }
}

void MetricsOutput::event(const Event& event) {
  using fieldlog::EventKind;
  State& s = *state_;
  std::lock_guard lock(s.mutex);
  switch (event.kind) {
    case EventKind::kConfig:
      s.reloads_ok.Increment();
      break;
    case EventKind::kConfigRejected:
      s.reloads_rejected.Increment();
      break;
    case EventKind::kSwap:
      s.swaps.Increment();
      break;
    case EventKind::kSourceLost:
      s.source_lost.Increment();
      break;
    case EventKind::kSourceOpened:
      if (event.fields.value("reopened", false)) s.source_reopened.Increment();
      break;
    default:
      break;
  }
  if (event.level == config::LogLevel::kError) {
    s.errors.Add({{"kind", std::string(fieldlog::event_name(event.kind))}}).Increment();
  }
}

void MetricsOutput::stats(const DaemonStatus& status) {
  State& s = *state_;
  std::lock_guard lock(s.mutex);
  s.fps.update(text::rounded(status.inference.fps, 2));
  s.state.set(std::string(state_name(status.state)));
  GaugeSnapshot::Values states, camera_fps, detection_fps, skipped_fps, motion_ms, runs, still;
  for (const CameraStatus& c : status.cameras) {
    const std::string camera = valid_utf8(c.name);
    const std::string now = std::string(state_name(c.source.state));
    std::set<std::string>& seen = s.source_states_seen[camera];
    seen.insert(now);
    for (const std::string& state : seen) {
      states.push_back({{{"camera", camera}, {"state", state}}, state == now ? 1.0 : 0.0});
    }
    camera_fps.push_back({{{"camera", camera}}, text::rounded(c.camera_fps, 2)});
    detection_fps.push_back({{{"camera", camera}}, text::rounded(c.detection_fps, 2)});
    skipped_fps.push_back({{{"camera", camera}}, text::rounded(c.skipped_fps, 2)});
    if (c.motion && c.motion->frames > 0) {
      motion_ms.push_back({{{"camera", camera}}, text::rounded(c.motion->ms_p50, 3)});
      runs.push_back({{{"camera", camera}}, text::rounded(c.motion->runs_per_frame, 3)});
      still.push_back({{{"camera", camera}}, text::rounded(c.motion->still_share, 3)});
    }
  }
  // A camera a reload removed goes from every series.
  std::erase_if(s.source_states_seen, [&](const auto& entry) {
    return std::none_of(status.cameras.begin(), status.cameras.end(),
                        [&](const CameraStatus& c) { return valid_utf8(c.name) == entry.first; });
  });
  s.source_state.update(states);
  s.camera_fps.update(camera_fps);
  s.detection_fps.update(detection_fps);
  s.skipped_fps.update(skipped_fps);
  s.motion_ms.update(motion_ms);
  s.model_runs_per_frame.update(runs);
  s.still_share.update(still);
  if (!status.model.name.empty()) {
    s.model_info.update({{{{"model", valid_utf8(status.model.name)},
                           {"precision", runtime::precision_name(status.model.precision)},
                           {"file", valid_utf8(status.model.file.string())}},
                          1}});
  }
  // Set once: recomputing it would make the start time jitter.
  if (!s.start_time_gauge) {
    const double now =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    s.start_time_gauge = &s.start_time.Add({});
    s.start_time_gauge->Set(std::round(now - status.uptime_s));
  }
}
nlohmann::json MetricsOutput::status() const {
  return {{"ok", true}, {"scrapes", state_->scrapes.load()}};
}

void MetricsOutput::collect_from(std::vector<const Publisher*> outputs) {
  state_->outputs = std::move(outputs);
}

std::string MetricsOutput::render() const {
  ++state_->scrapes;
  for (const Publisher* output : state_->outputs) output->metrics(*state_->sink);
  return prometheus::TextSerializer().Serialize(state_->registry.Collect());
}

namespace {

// The family `name` of `families`, registered at its first use.
template <typename T, typename Builder>
Family<T>& custom_family(std::map<std::string, Family<T>*>& families,
                         prometheus::Registry& registry, Builder builder, const std::string& name,
                         const std::string& help) {
  if (const auto found = families.find(name); found != families.end()) return *found->second;
  if (!prometheus::CheckMetricName(name)) {
    throw std::invalid_argument("metrics: '" + name + "' is not a valid metric name");
  }
  try {
    Family<T>& family = builder.Name(name).Help(help_text(help)).Register(registry);
    families.emplace(name, &family);
    return family;
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("metrics: cannot add '" + name + "': " + e.what());
  }
}

}  // namespace

void MetricsOutput::add_counter(const std::string& name, const std::string& help,
                                const Labels& labels, double delta) {
  if (!name.ends_with("_total")) {
    throw std::invalid_argument("metrics: counter '" + name + "' must be named ..._total");
  }
  if (!(delta >= 0) || !std::isfinite(delta)) {
    throw std::invalid_argument("metrics: counter '" + name + "' cannot change by " +
                                std::to_string(delta) + ": counters only go up");
  }
  const prometheus::Labels series = clean(labels);
  State& s = *state_;
  std::lock_guard lock(s.mutex);
  custom_family(s.custom_counters, s.registry, prometheus::BuildCounter(), name, help)
      .Add(series)
      .Increment(delta);
}

void MetricsOutput::follow_counter(const std::string& name, const std::string& help,
                                   const Labels& labels, double total) {
  const prometheus::Labels series = clean(labels);
  State& s = *state_;
  std::lock_guard lock(s.mutex);
  if (!name.ends_with("_total")) {
    throw std::invalid_argument("metrics: counter '" + name + "' must be named ..._total");
  }
  prometheus::Counter& counter =
      custom_family(s.custom_counters, s.registry, prometheus::BuildCounter(), name, help)
          .Add(series);
  if (std::isfinite(total) && total > counter.Value()) counter.Increment(total - counter.Value());
}

void MetricsOutput::set_gauge(const std::string& name, const std::string& help,
                              const Labels& labels, double value) {
  if (!std::isfinite(value)) {
    throw std::invalid_argument("metrics: gauge '" + name + "' cannot be set to " +
                                std::to_string(value));
  }
  const prometheus::Labels series = clean(labels);
  State& s = *state_;
  std::lock_guard lock(s.mutex);
  custom_family(s.custom_gauges, s.registry, prometheus::BuildGauge(), name, help)
      .Add(series)
      .Set(value);
}

}  // namespace yolo::daemon
