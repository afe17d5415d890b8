// SPDX-License-Identifier: Apache-2.0
#include "daemon/model/shadow_checks.h"

#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <mutex>
#include <utility>

#include "daemon/core/decode_options.h"
#include "detector/precision_trial.h"
#include "fieldlog/keys.h"
#include "text/format.h"

namespace yolo::daemon {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kTrendSlices = 6;
constexpr auto kReportEvery = std::chrono::seconds(10);

std::chrono::nanoseconds thread_cpu_time() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
}

// SCHED_IDLE runs the thread only on time no other thread wants; a forced check (and the last
// one at stop) runs as an ordinary thread at the lowest nice value, so it gets a share of a busy
// device. Per thread: Linux applies both to the thread whose id is given.
void set_idle(int tid, bool idle) {
  sched_param param{};
  sched_setscheduler(tid, idle ? SCHED_IDLE : SCHED_OTHER, &param);
  if (!idle) setpriority(PRIO_PROCESS, static_cast<id_t>(tid), 19);
}

}  // namespace

bool ShadowPair::same_files(const ShadowPair& other) const {
  return fp32.model == other.fp32.model && int8.model == other.int8.model &&
         fp32.engine.imgsz == other.fp32.engine.imgsz &&
         int8.engine.imgsz == other.int8.engine.imgsz && int8_version == other.int8_version;
}

nlohmann::json to_json(const ShadowSnapshot& s) {
  nlohmann::json j{{"enabled", s.enabled},
                   {"checks_total", s.checks_total},
                   {"window_checks", s.window_checks},
                   {"window_fp32_boxes", s.window_fp32_boxes},
                   {"used_share", s.used_share},
                   {"budget_share", s.budget_share},
                   {"starved", s.starved},
                   {"last_check_ms", s.last_check_ms},
                   {"drift", {{"phase", s.drift_phase}, {"explanation", s.drift_explanation}}}};
  if (!s.idle_reason.empty()) j["idle_reason"] = s.idle_reason;
  if (!s.fp32_file.empty()) j["fp32"] = s.fp32_file;
  if (!s.int8_file.empty()) j["int8"] = s.int8_file;
  if (s.running) j["running"] = runtime::precision_name(*s.running);
  const auto number = [](const std::optional<double>& v) -> nlohmann::json {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  j["agreement"] = number(s.agreement);
  if (!s.measure.empty()) j["measure"] = s.measure;
  j["box_ap50"] = number(s.box_ap50);
  j["score_mad"] = number(s.score_mad);
  j["trend"] = nlohmann::json::array();
  for (const auto& v : s.trend) j["trend"].push_back(number(v));
  j["classes"] = nlohmann::json::array();
  for (const auto& c : s.classes) {
    j["classes"].push_back({{"class", c.id},
                            {"label", c.name},
                            {"fp32_boxes", c.fp32_boxes},
                            {"int8_boxes", c.int8_boxes},
                            {"matched", c.matched},
                            {"ap50", c.ap50}});
  }
  j["ok"] = s.warning.empty() && !s.starved;
  if (!s.warning.empty()) j["warning"] = s.warning;
  return j;
}

// What other threads hand the checks' thread besides frames and settings.
struct ShadowChecks::Requests {
  std::mutex mutex;
  std::uint64_t pair_version = 0;
  std::optional<ShadowPair> pair;
  std::string idle_reason;
  // A requantize that ended (its failure, if any), not yet told to the drift watch.
  std::optional<std::optional<std::string>> requantize_ended;
};

// Everything the checks' thread owns.
struct ShadowChecks::Checker {
  ShadowSettings settings;
  std::uint64_t pair_version = 0;
  std::optional<ShadowPair> pair;
  std::string idle_reason;
  std::unique_ptr<detector::Detector> fp32;
  std::unique_ptr<detector::Detector> int8;
  // Why the pair's engines could not be built: no check until the pair changes.
  std::string build_error;
  std::optional<detector::RollingAgreement> rolling;
  std::optional<detector::CheckBudget> budget;
  std::optional<detector::DriftWatch> drift;
  long checks_total = 0;
  double last_check_ms = 0;
  bool said_starved = false;
  Clock::time_point reported{};
};

ShadowChecks::ShadowChecks(Events& events, Act act)
    : QueuedOutput("int8-checks", 1, std::chrono::seconds(30)),
      events_(events),
      act_(std::move(act)),
      requests_(std::make_unique<Requests>()) {}

ShadowChecks::~ShadowChecks() {
  stop();
}

void ShadowChecks::configure(const config::Config& config) {
  ShadowSettings s;
  s.enabled = config.checks.enabled;
  s.budget_share = config.checks.budget_percent / 100.0;
  s.max_interval = std::chrono::seconds(config.checks.max_interval_s);
  s.window.span = std::chrono::minutes(config.checks.window_min);
  s.drift.min_map50 = config.model.auto_min_map50;
  s.drift.hold = std::chrono::minutes(config.checks.drift_after_min);
  switch (config.checks.drift_action) {
    case config::DriftAction::kWarn:
      s.drift.action = detector::DriftAction::kWarn;
      break;
    case config::DriftAction::kFp32:
      s.drift.action = detector::DriftAction::kFp32;
      break;
    case config::DriftAction::kRequantize:
      s.drift.action = detector::DriftAction::kRequantize;
      break;
  }
  s.decode = decode_options(config.detect);
  hand_over(std::move(s));
}

void ShadowChecks::set_pair(std::optional<ShadowPair> pair, std::string idle_reason) {
  {
    std::lock_guard lock(requests_->mutex);
    if (pair && requests_->pair && pair->same_files(*requests_->pair) &&
        pair->running == requests_->pair->running) {
      return;
    }
    requests_->pair = std::move(pair);
    requests_->idle_reason = std::move(idle_reason);
    ++requests_->pair_version;
  }
  wake();
}

void ShadowChecks::requantize_ended(std::optional<std::string> failure) {
  {
    std::lock_guard lock(requests_->mutex);
    requests_->requantize_ended = std::move(failure);
  }
  wake();
}

bool ShadowChecks::wants_frame(const FrameResult& result) const {
  if (result.frameless || !active_.load() || busy_.load()) return false;
  return Clock::now().time_since_epoch().count() >= next_due_ns_.load();
}

void ShadowChecks::publish(std::shared_ptr<const FrameResult> result) {
  if (!result->frame || !wants_frame(*result)) return;
  busy_ = true;
  if (!push(std::move(result))) busy_ = false;
}

std::optional<Int8CheckFigures> ShadowChecks::figures() const {
  const ShadowSnapshot s = snapshot();
  if (!s.enabled || !s.idle_reason.empty() || !s.warning.empty()) return std::nullopt;
  return Int8CheckFigures{s.agreement, s.checks_total};
}

std::optional<LiveAgreement> ShadowChecks::live_agreement() const {
  const ShadowSnapshot s = snapshot();
  if (!s.enabled || !s.idle_reason.empty() || !s.warning.empty() ||
      s.running != runtime::Precision::kFp32) {
    return std::nullopt;
  }
  return LiveAgreement{s.int8_path, s.agreement, s.window_fp32_boxes, s.window_checks, s.window};
}

nlohmann::json ShadowChecks::status() const {
  return to_json(snapshot());
}

void ShadowChecks::metrics(MetricsSink& sink) const {
  const ShadowSnapshot s = snapshot();
  if (!s.enabled) return;
  sink.follow_counter("yolo_edge_int8_checks_total",
                      "Frames run at both precisions to check INT8 against FP32 live", {},
                      static_cast<double>(s.checks_total));
  if (s.agreement) {
    sink.set_gauge("yolo_edge_int8_agreement",
                   "INT8's agreement with FP32 over the checks' rolling window (judged mAP50, "
                   "else box-weighted AP50)",
                   {}, *s.agreement);
  }
  sink.set_gauge("yolo_edge_int8_checks_cpu_ratio",
                 "Share of one core the INT8 checks used since they began", {}, s.used_share);
  sink.set_gauge("yolo_edge_int8_checks_starved",
                 "1 when no INT8 check has ended for twice checks.max_interval_s", {},
                 s.starved ? 1.0 : 0.0);
}

bool ShadowChecks::stop() {
  // A check under way at idle priority may never get the CPU on a busy device: let it end.
  if (const int tid = thread_id_.load()) set_idle(tid, false);
  return stop_worker();
}

void ShadowChecks::run() {
  thread_id_ = static_cast<int>(::syscall(SYS_gettid));
  set_idle(thread_id_, true);
  Checker c;
  for (;;) {
    const auto item = queue().pop(std::chrono::seconds(1));
    const bool changed = take_changes(c);
    if (item) {
      check(c, **item);
      busy_ = false;
    } else if (queue().closed()) {
      return;
    }
    active_ = c.settings.enabled && c.pair && c.build_error.empty();
    if (c.budget) next_due_ns_ = c.budget->next().time_since_epoch().count();
    // The figures are computed over the whole window: after a check or a change, else every
    // kReportEvery for the window's expiry and the starved flag (every second cost a tenth of the
    // checks' own budget).
    const Clock::time_point now = Clock::now();
    if (item || changed || now - c.reported >= kReportEvery) {
      report_state(c);
      c.reported = now;
    }
  }
}

bool ShadowChecks::take_changes(Checker& c) {
  bool changed = false;
  if (auto s = take_settings()) {
    changed = true;
    const bool window_changed = !c.rolling || s->window.span != c.settings.window.span ||
                                s->decode.conf != c.settings.decode.conf;
    const bool budget_changed = !c.budget || s->budget_share != c.settings.budget_share ||
                                s->max_interval != c.settings.max_interval;
    const bool drift_changed = !c.drift || s->drift.action != c.settings.drift.action ||
                               s->drift.hold != c.settings.drift.hold ||
                               s->drift.min_map50 != c.settings.drift.min_map50;
    c.settings = *s;
    if (c.fp32) c.fp32->set_decode(c.settings.decode);
    if (c.int8) c.int8->set_decode(detector::prediction_decode(c.settings.decode));
    if (window_changed) c.rolling.emplace(c.settings.window, c.settings.decode.conf);
    if (budget_changed) {
      c.budget.emplace(c.settings.budget_share, c.settings.max_interval, Clock::now());
    }
    if (drift_changed) c.drift.emplace(c.settings.drift);
  }
  std::lock_guard lock(requests_->mutex);
  if (requests_->pair_version != c.pair_version) {
    changed = true;
    c.pair_version = requests_->pair_version;
    const bool new_files = !requests_->pair || !c.pair || !requests_->pair->same_files(*c.pair);
    c.pair = requests_->pair;
    c.idle_reason = requests_->idle_reason;
    if (new_files) {
      // Another INT8 file: the old one's checks and drift say nothing of it.
      c.fp32.reset();
      c.int8.reset();
      c.build_error.clear();
      if (c.rolling) c.rolling->clear();
      if (c.drift) c.drift.emplace(c.settings.drift);
    }
  }
  if (requests_->requantize_ended && c.drift) {
    changed = true;
    if (const auto& failure = *requests_->requantize_ended) {
      say_drift(c, config::LogLevel::kWarning,
                c.drift->requantize_failed(Clock::now(), *failure).reason);
    } else {
      c.drift->requantized();
    }
  }
  requests_->requantize_ended.reset();
  return changed;
}

void ShadowChecks::check(Checker& c, const FrameResult& result) {
  if (!c.pair || !c.budget || !result.frame) return;
  const Clock::time_point started = Clock::now();
  const bool forced = c.budget->forced(started);
  if (forced) set_idle(thread_id_, false);
  const std::chrono::nanoseconds cpu_before = thread_cpu_time();
  try {
    if (!c.fp32) build(c);
    const vision::Detections truth = c.fp32->detect(*result.frame);
    vision::Detections int8 = c.int8->detect(*result.frame);
    const Clock::time_point ended = Clock::now();
    c.budget->spent(started, ended, thread_cpu_time() - cpu_before);
    c.last_check_ms = std::chrono::duration<double, std::milli>(ended - started).count();
    ++c.checks_total;
    c.rolling->add(ended, truth, std::move(int8));
    act(c, c.drift->update(ended, c.rolling->value(), c.rolling->fp32_boxes()));
  } catch (const std::exception& e) {
    c.fp32.reset();
    c.int8.reset();
    c.build_error = std::string("INT8 checks off until the model changes: ") + e.what();
    events_.emit(config::LogLevel::kWarning, fieldlog::EventKind::kInt8Checks, c.build_error);
    c.budget->spent(started, Clock::now(), thread_cpu_time() - cpu_before);
  }
  if (forced) set_idle(thread_id_, true);
}

void ShadowChecks::build(Checker& c) {
  detector::DetectorOptions fp32 = c.pair->fp32;
  fp32.decode = c.settings.decode;
  detector::DetectorOptions int8 = c.pair->int8;
  int8.decode = detector::prediction_decode(c.settings.decode);
  c.fp32 = std::make_unique<detector::Detector>(fp32);
  c.int8 = std::make_unique<detector::Detector>(int8);
  if (c.fp32->names().size() != c.int8->names().size() ||
      c.fp32->engine().input_width() != c.int8->engine().input_width() ||
      c.fp32->engine().input_height() != c.int8->engine().input_height()) {
    throw std::runtime_error(c.pair->int8.model.string() + " does not match " +
                             c.pair->fp32.model.string() +
                             " (other classes or input size): INT8 cannot be checked against "
                             "it; give model.int8_path an INT8 file made from model.path");
  }
}

void ShadowChecks::act(Checker& c, const detector::DriftWatch::Verdict& v) {
  if (v.step == detector::DriftWatch::Step::kNone) return;
  say_drift(c,
            v.step == detector::DriftWatch::Step::kAgreesAgain ? config::LogLevel::kInfo
                                                               : config::LogLevel::kWarning,
            v.reason);
  if (act_) act_(v);
}

void ShadowChecks::say_drift(Checker& c, config::LogLevel level, const std::string& reason) {
  events_.emit(level, fieldlog::EventKind::kInt8Drift, reason,
               {{fieldlog::key::kPhase, detector::phase_name(c.drift->phase())},
                {fieldlog::key::kAction, detector::action_name(c.settings.drift.action)},
                {fieldlog::key::kMinMap50, c.settings.drift.min_map50}});
}

void ShadowChecks::report_state(Checker& c) {
  ShadowSnapshot s;
  const Clock::time_point now = Clock::now();
  s.enabled = c.settings.enabled;
  if (!c.settings.enabled) {
    s.idle_reason = "checks.enabled is false";
  } else if (!c.pair) {
    s.idle_reason = c.idle_reason;
  }
  if (c.pair) {
    s.fp32_file = c.pair->fp32.model.filename().string();
    s.int8_file = c.pair->int8.model.filename().string();
    s.int8_path = c.pair->int8.model;
    s.running = c.pair->running;
  }
  s.checks_total = c.checks_total;
  s.budget_share = c.settings.budget_share;
  s.window = c.settings.window.span;
  s.last_check_ms = c.last_check_ms;
  if (c.rolling) {
    c.rolling->expire(now);
    const vision::Agreement a = c.rolling->agreement();
    s.window_checks = static_cast<long>(c.rolling->checks());
    s.window_fp32_boxes = c.rolling->fp32_boxes();
    s.agreement = detector::judged_map50(a, &s.measure);
    s.box_ap50 = a.box_ap50;
    s.score_mad = a.score_mad;
    s.trend = c.rolling->trend(now, kTrendSlices);
    for (const vision::ClassAgreement& k : a.classes) {
      if (!k.has_truth()) continue;
      const std::string name = c.fp32 ? c.fp32->names().name(k.class_id) : "";
      s.classes.push_back({k.class_id, name, k.a_count, k.b_count, k.matched, k.ap50()});
    }
  }
  if (c.budget) {
    s.used_share = c.budget->used_share(now);
    s.starved = s.enabled && c.pair && c.build_error.empty() && c.budget->starved(now);
  }
  if (c.drift) {
    s.drift_phase = std::string(detector::phase_name(c.drift->phase()));
    s.drift_explanation = c.drift->explanation();
  }
  s.warning = c.build_error;
  if (s.starved && !c.said_starved) {
    events_.emit(config::LogLevel::kWarning, fieldlog::EventKind::kInt8Checks,
                 "INT8 checks starved: none has ended for " +
                     text::duration_text(2 * c.settings.max_interval) +
                     " (the device has no idle time; the check due runs at nice 19)");
  }
  c.said_starved = s.starved;
  report(std::move(s));
}

}  // namespace yolo::daemon
