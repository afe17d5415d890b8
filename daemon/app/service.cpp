// SPDX-License-Identifier: Apache-2.0
#include "daemon/app/service.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <thread>

#include "config/config_loader.h"
#include "config/schema.h"
#include "daemon/base/host_name.h"
#include "daemon/base/version.h"
#include "daemon/core/state_files.h"
#include "daemon/outputs/outputs.h"
#include "detector/model_names.h"
#include "runtime/engine/engine.h"
#include "text/format.h"
#include "text/time_format.h"
#include "vision/capture.h"

namespace yolo::daemon {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

// The status is built this often (status() readers, the outputs' stats and the status line
// see it at most this old).
constexpr auto kTick = std::chrono::milliseconds(250);
// STATUS= is sent when it changes (its figures do all the time), at most this often, and at
// least every kStatusRefresh; a reload or a start sends it at once.
constexpr auto kStatusMin = std::chrono::seconds(5);
constexpr auto kStatusRefresh = std::chrono::seconds(10);
// How often publishers get the status (MQTT's stats publish at their own, slower, interval).
constexpr auto kStatsPeriod = std::chrono::seconds(1);
// Without a first frame by then (a slow stream), the daemon still says it is ready.
constexpr auto kReadyAtLatest = std::chrono::seconds(30);
// A config file rewritten in several steps settles within this.
constexpr auto kWatchDebounce = std::chrono::milliseconds(300);
// A capture thread silent for this long is stuck in a driver (its reads and waits beat more
// often): the watchdog lets systemd restart the service.
constexpr auto kCaptureStall = std::chrono::seconds(30);
// The inference thread goes round at least every 250 ms when idle; a frame that takes this much
// longer than the slowest seen means it is stuck.
constexpr auto kInferenceStall = std::chrono::seconds(10);
// The first frame has no time to compare with, and takes longest (operator setup; seconds on a
// slow or emulated machine): it is stuck only after this.
constexpr auto kFirstFrameStall = std::chrono::seconds(120);
// How long the threads may take together to stop at exit (SIGTERM must end the process within
// 5 s; the field log's last writes come after them), and the least each one is given.
constexpr auto kStopThreads = std::chrono::milliseconds(3500);
constexpr auto kStopAtLeast = std::chrono::milliseconds(200);

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string source_error(const SourceStatus& source) {
  return source.last_error.empty() ? "no frame yet" : source.last_error;
}

}  // namespace

ThreadPolicy thread_policy(const config::ThreadsConfig& threads) {
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  ThreadPolicy p;
  p.mode = threads.mode;
  p.fixed = threads.count > 0 ? threads.count : cores;
  p.max = threads.max > 0 ? threads.max : cores;
  p.margin = threads.margin;
  return p;
}

std::vector<std::string> changed_keys(const config::Config& before, const config::Config& after) {
  std::vector<std::string> keys;
  for (const config::FieldSpec& f : config::fields()) {
    if (f.fetch(before) != f.fetch(after)) keys.push_back(f.path());
  }
  return keys;
}

Service::Service(ServiceOptions options) : options_(std::move(options)) {}

Service::~Service() = default;

std::vector<Publisher*> Service::publishers() const {
  std::vector<Publisher*> out;
  for (const auto& p : publishers_) out.push_back(p.get());
  return out;
}

config::Config Service::load(std::vector<config::ConfigProblem>* warnings,
                             std::vector<config::Override> overrides) const {
  config::LoadOptions options;
  options.static_int8 = runtime::is_static_int8_file;
  options.class_names = detector::model_class_names;
  options.check_source = [](const std::string& uri, const fs::path& base) {
    vision::SourceCheck c = vision::check_source(uri, base);
    return config::SourceCheck{std::move(c.uri), std::move(c.error), std::move(c.warning)};
  };
  options.warnings = warnings;
  options.overrides = std::move(overrides);
  return config::load_config(options_.config_file, options);
}

std::optional<tracking::Counts> Service::restore_tracking_state() {
  std::optional<tracking::Counts> counts;
  const auto read = [this](const fs::path& file, const std::string& what, const auto& take) {
    std::error_code ec;
    if (!fs::exists(file, ec)) return;
    try {
      std::ifstream in(file);
      take(nlohmann::json::parse(in));
    } catch (const std::exception& e) {
      const fs::path bad = file.string() + ".bad";
      fs::rename(file, bad, ec);
      log_.warning("cannot read the " + what + " kept in " + file.string() + ": " + e.what() +
                   "; they start again from nothing (the file is kept as " + bad.string() + ")");
    }
  };
  read(events_file(options_.state_dir), "events",
       [this](const nlohmann::json& j) { object_events_.restore(j); });
  read(counts_file(options_.state_dir), "counts",
       [&counts](const nlohmann::json& j) { counts = tracking::counts_from_json(j); });
  return counts;
}

int Service::run(SignalPipe& signals) {
  const int started = start();
  if (started != kExitOk) return started;
  return control_loop(signals);
}

int Service::start() {
  std::vector<config::ConfigProblem> warnings;
  try {
    config_ = load(&warnings);
  } catch (const config::ConfigError& e) {
    log_.error(std::string("invalid config, not starting:\n") + e.what() +
               "\nFix it (yolo-edge config --check " + options_.config_file.string() +
               " shows every problem) and start again.");
    return kExitConfig;
  }
  log_.set_level(config_.logging.level);
  for (const auto& w : warnings) {
    log_.warning(config::format_problem(options_.config_file.string(), w));
  }

  object_events_.set_history(static_cast<std::size_t>(config_.events.history));
  restored_counts_ = restore_tracking_state();
  // The checks' drift action fp32 reaches the control loop the way the API's precision switch
  // does: FP32 until the next reload. A requantize is the model manager's (no config changes).
  auto checks =
      std::make_unique<ShadowChecks>(events_, [this](const detector::DriftWatch::Verdict& v) {
        switch (v.step) {
          case detector::DriftWatch::Step::kSwitchToFp32:
            control_.post({ControlRequest::Kind::kPrecision, "fp32", "the INT8 checks"});
            break;
          case detector::DriftWatch::Step::kRequantize:
            if (model_) model_->requantize(v.reason);
            break;
          case detector::DriftWatch::Step::kAgreesAgain:
            if (model_) model_->drift_over();
            break;
          case detector::DriftWatch::Step::kNone:
          case detector::DriftWatch::Step::kWarn:
            break;
        }
      });
  checks_ = checks.get();
  publishers_ = make_outputs(
      {.events = events_,
       .object_events = object_events_,
       .state_dir = options_.state_dir,
       .status = [this] { return status(); },
       .call = [this](ControlRequest r,
                      std::chrono::milliseconds t) { return control_.call(std::move(r), t); },
       .post = [this](ControlRequest r) { control_.post(std::move(r)); },
       .reset_counts =
           [this](const std::string& camera, const std::string& place) {
             for (const std::shared_ptr<CameraStage>& c : hub_.cameras()) {
               if (c->name() == camera) return c->tracking().request_reset(place);
             }
             return false;
           },
       .measured = {checks_}});
  auto reservoir =
      std::make_unique<CalibrationReservoir>(events_, options_.state_dir / "calibration");
  reservoir_ = reservoir.get();
  publishers_.push_back(std::move(reservoir));
  publishers_.push_back(std::move(checks));
  for (const auto& p : publishers_) {
    p->configure(config_);
    p->start();
    events_.add(p.get());
  }
  events_.emit(
      config::LogLevel::kInfo, fieldlog::EventKind::kStart,
      "yolo-edged " + std::string(version()) + " starting with " + options_.config_file.string(),
      {{"version", version()},
       {"config", options_.config_file.string()},
       {"state_dir", options_.state_dir.string()},
       {"pid", static_cast<int>(getpid())}});

  pools_ = runtime::make_thread_pools();
  model_ = std::make_unique<ModelManager>(
      events_, ModelManager::Options{options_.state_dir / "int8", options_.cli, pools_, checks_},
      *reservoir_);
  LoadedModel model;
  try {
    model = model_->load_initial(config_.model);
  } catch (const std::exception& e) {
    events_.emit(config::LogLevel::kError, fieldlog::EventKind::kModelFailed,
                 std::string("cannot load the model, not starting: ") + e.what(),
                 {{"error", e.what()}});
    shutdown("the model could not be loaded");
    return kExitConfig;
  }
  inference_ = std::make_unique<Inference>(
      events_, hub_, publishers(),
      [this](std::unique_ptr<detector::Detector> d) { model_->retire(std::move(d)); });
  inference_->set_tracking(config_.tracking);
  inference_->start(std::move(model), decode_options(config_.detect),
                    thread_policy(config_.threads));
  telemetry_ = std::make_unique<TelemetryThread>(
      events_, publishers(), [this](bool throttled) { inference_->throttling_changed(throttled); });
  telemetry_->start(config_.telemetry);
  model_->start(*inference_);
  for (const config::CameraConfig& camera : config::camera_list(config_)) {
    cameras_.push_back(start_camera(camera, config_));
  }
  return kExitOk;
}

Service::CameraRun Service::start_camera(const config::CameraConfig& camera,
                                         const config::Config& config) {
  auto stage = std::make_shared<CameraStage>(object_events_, camera.name);
  stage->configure(tracking_settings(config, camera.name));
  stage->motion().configure(motion_settings(config, camera));
  // Before the hub knows the camera: the inference thread takes its stage from then on.
  if (restored_counts_) stage->tracking().restore(*restored_counts_);
  auto capture =
      std::make_unique<Capture>(events_, hub_, stage, camera.detect_fps, !config.cameras.empty());
  capture->start(camera.source);
  return {camera, std::move(stage), std::move(capture)};
}

void Service::reconfigure_cameras(const config::Config& next) {
  const std::vector<config::CameraConfig> wanted = config::camera_list(next);
  // Removed first, so a camera renamed frees its device before its new self opens it.
  std::vector<CameraRun> kept;
  for (CameraRun& run : cameras_) {
    const bool stays = std::any_of(wanted.begin(), wanted.end(),
                                   [&](const auto& c) { return c.name == run.config.name; });
    if (stays) {
      kept.push_back(std::move(run));
      continue;
    }
    if (!run.capture->stop(kStopThreads)) {
      log_.warning("camera " + run.config.name +
                   ": its capture did not stop in time (a read that never returned); it is "
                   "left behind");
      stuck_captures_.push_back(std::move(run.capture));
    }
    events_.emit(config::LogLevel::kInfo, fieldlog::EventKind::kConfig,
                 "camera " + run.config.name + " removed", {{"camera", run.config.name}});
  }
  cameras_.clear();
  for (const config::CameraConfig& camera : wanted) {
    const auto it = std::find_if(kept.begin(), kept.end(),
                                 [&](const CameraRun& r) { return r.config.name == camera.name; });
    if (it == kept.end()) {
      cameras_.push_back(start_camera(camera, next));
      continue;
    }
    CameraRun& run = *it;
    if (camera.source != run.config.source) run.capture->reconfigure(camera.source);
    if (camera.detect_fps != run.config.detect_fps) run.capture->set_detect_fps(camera.detect_fps);
    if (tracking_settings(next, camera.name) != tracking_settings(config_, camera.name)) {
      run.stage->configure(tracking_settings(next, camera.name));
    }
    if (auto motion = motion_settings(next, camera);
        motion != motion_settings(config_, run.config)) {
      run.stage->motion().configure(std::move(motion));
    }
    run.config = camera;
    cameras_.push_back(std::move(run));
  }
}

void Service::watch_config(bool on) {
  watch_source_ = {};
  watch_.reset();
  if (!on) return;
  try {
    watch_ = std::make_unique<ConfigWatch>(options_.config_file);
  } catch (const std::exception& e) {
    log_.warning(std::string("config.watch: ") + e.what() + "; reload with SIGHUP instead");
    return;
  }
  // A file rewritten in several steps is reloaded once, when it has settled.
  watch_source_ = loop_->readable(watch_->fd(), [this] {
    if (watch_->changed()) reload_after_edit_.arm(kWatchDebounce);
  });
}

int Service::control_loop(SignalPipe& signals) {
  loop_ = std::make_unique<EventLoop>();
  std::string stop_reason;
  // Several signals that came together make one reload, as the kernel's pending signals did; a
  // stop among them wins.
  const auto on_signal = loop_->readable(signals.fd(), [&] {
    bool hangup = false;
    while (const std::optional<int> number = signals.next()) {
      if (*number == SIGHUP) {
        hangup = true;
      } else if (stop_reason.empty()) {
        stop_reason = *number == SIGTERM ? "SIGTERM" : "SIGINT";
      }
    }
    if (!stop_reason.empty()) {
      loop_->exit();
    } else if (hangup) {
      reload("SIGHUP");
    }
  });
  const auto on_request = loop_->readable(control_.fd(), [this] {
    control_.serve([this](const ControlRequest& r) {
      ControlReply reply = serve(r);
      // Whoever asked sees the outcome in the next status they read.
      refresh_status();
      return reply;
    });
  });
  reload_after_edit_ = loop_->one_shot([this] { reload("the config file changed"); });
  watch_config(config_.file.watch);
  const auto refresh = loop_->every(kTick, [this] { on_tick(); });
  const auto stats = loop_->every(kStatsPeriod, [this] {
    const auto now = status();
    for (const auto& p : publishers_) p->stats(*now);
  });
  EventLoop::Source watchdog;
  if (const auto period = notifier_.watchdog_period()) {
    ping_watchdog();
    watchdog = loop_->every(*period, [this] { ping_watchdog(); });
  }
  auto ready_at_latest = loop_->one_shot([this] { announce_ready(); });
  ready_at_latest.arm(std::chrono::duration_cast<EventLoop::Duration>(std::max<Clock::duration>(
      Clock::duration::zero(), started_ + kReadyAtLatest - Clock::now())));

  // The handled signals are unblocked only while the loop waits: a signal that ends the wait
  // has already been written to the pipe by the handler.
  const sigset_t wait_mask = signals.wait_mask();
  loop_->run(&wait_mask);

  control_.close();
  shutdown(stop_reason);
  return kExitOk;
}

ControlReply Service::serve(const ControlRequest& request) {
  if (request.kind == ControlRequest::Kind::kReload) return reload(request.origin);
  std::string precision = request.precision;
  if (precision == "toggle") {
    const auto model = inference_->model();
    precision = runtime::precision_name(model && model->precision == runtime::Precision::kInt8
                                            ? runtime::Precision::kFp32
                                            : runtime::Precision::kInt8);
  }
  return reload(request.origin,
                config::Override{"model.precision", precision, "through " + request.origin});
}

ControlReply Service::reload(const std::string& why, std::optional<config::Override> precision) {
  reloading_ = true;
  notifier_.reloading();
  update_status_line(true);
  const auto refuse = [&](const config::ConfigError& e) {
    last_error_ = std::string("reload refused: ") + e.what();
    last_error_time_ = text::iso8601_utc(std::chrono::system_clock::now());
    events_.emit(config::LogLevel::kError, fieldlog::EventKind::kConfigRejected,
                 "reload (" + why + ") refused, still running the previous config:\n" + e.what(),
                 {{"error", e.what()},
                  {"key", e.key()},
                  {"line", e.line()},
                  {"column", e.column()},
                  {"file", e.file()},
                  {"trigger", why}});
    reloading_ = false;
    notifier_.ready();
    update_status_line(true);
    return ControlReply{ControlReply::Outcome::kRefused,
                        std::string("refused, still running the previous config: ") + e.what(),
                        {}};
  };
  std::vector<config::ConfigProblem> warnings;
  config::Config next;
  std::optional<PrecisionOverride> override_next = precision_override_;
  try {
    next = load(&warnings);
    const auto drop = [&](const std::string& reason) {
      events_.emit(config::LogLevel::kInfo, fieldlog::EventKind::kPrecisionOverrideDropped,
                   "model.precision " + override_next->value.value + " set " +
                       override_next->value.origin + " no longer applies: " + reason,
                   {{"set", override_next->value.value}, {"reason", reason}});
      override_next.reset();
    };
    if (override_next && next.model.precision != override_next->file_value) {
      drop("the file's model.precision changed");
    }
    if (precision) override_next = PrecisionOverride{*precision, next.model.precision};
    if (override_next) {
      std::vector<config::ConfigProblem> with_warnings;
      try {
        next = load(&with_warnings, {override_next->value});
        warnings = std::move(with_warnings);
      } catch (const config::ConfigError& e) {
        // A new request is refused; an earlier one gives way to the file that no longer
        // allows it.
        if (precision) throw;
        drop("the file no longer allows it (" +
             std::string(e.what()).substr(0, std::string(e.what()).find('\n')) + ")");
      }
    }
  } catch (const config::ConfigError& e) {
    return refuse(e);
  }
  precision_override_ = std::move(override_next);
  for (const auto& w : warnings) {
    log_.warning(config::format_problem(options_.config_file.string(), w));
  }
  const std::vector<std::string> changed = changed_keys(config_, next);
  std::string list;
  for (const auto& k : changed) list += (list.empty() ? "" : ", ") + k;
  const std::string message =
      "reloaded (" + why + "): " + (changed.empty() ? "nothing changed" : list);
  events_.emit(config::LogLevel::kInfo, fieldlog::EventKind::kConfig, message,
               {{"changed", changed}, {"trigger", why}});

  log_.set_level(next.logging.level);
  for (const auto& p : publishers_) p->configure(next);
  reconfigure_cameras(next);
  if (next.detect != config_.detect) inference_->set_decode(decode_options(next.detect));
  if (next.threads != config_.threads) inference_->set_thread_policy(thread_policy(next.threads));
  if (next.tracking != config_.tracking) inference_->set_tracking(next.tracking);
  object_events_.set_history(static_cast<std::size_t>(next.events.history));
  if (next.telemetry != config_.telemetry) telemetry_->reconfigure(next.telemetry);
  // Always: a reload also retries a model or a quantization that failed.
  model_->reconfigure(next.model);
  if (next.file.watch != config_.file.watch) watch_config(next.file.watch);
  config_ = std::move(next);
  last_error_.clear();
  reloading_ = false;
  notifier_.ready();
  update_status_line(true);
  std::string reply = message;
  if (const std::string pending = model_->pending_summary(); !pending.empty()) {
    reply += "; " + pending;
  }
  return {ControlReply::Outcome::kApplied, reply, changed};
}

void Service::shutdown(const std::string& why) {
  notifier_.stopping();
  notifier_.status("stopping (" + why + ")");
  nlohmann::json fields = {{"reason", why}, {"uptime_s", std::round(seconds_since(started_))}};
  if (inference_) fields["frames"] = inference_->frames();
  events_.emit(config::LogLevel::kInfo, fieldlog::EventKind::kStop, "stopping (" + why + ")",
               std::move(fields));
  bool clean = true;
  // One budget for all: what a quick thread does not use, a slower one may.
  const auto deadline = Clock::now() + kStopThreads;
  const auto left = [&] {
    return std::max<std::chrono::milliseconds>(
        kStopAtLeast,
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
  };
  for (CameraRun& camera : cameras_) clean = camera.capture->stop(left()) && clean;
  if (!stuck_captures_.empty()) clean = false;
  if (inference_) clean = inference_->stop(left()) && clean;
  if (model_) clean = model_->stop(left()) && clean;
  if (telemetry_) clean = telemetry_->stop(left()) && clean;
  // Last: the field log writes the stop event and the final partial interval. What could not be
  // written is said here, the only place left to say it.
  for (const auto& p : publishers_) {
    clean = p->stop() && clean;
    const nlohmann::json status = p->status();
    if (status.contains("warning")) {
      log_.warning(std::string(p->name()) + " at exit: " + status["warning"].get<std::string>());
    }
  }
  if (!clean) {
    left_behind_ = true;
    log_.warning(
        "a thread did not stop in time (a camera read that never returned); exiting "
        "without waiting for it");
  }
}

bool Service::watchdog_ok() const {
  const auto now = Clock::now();
  for (const CameraRun& camera : cameras_) {
    if (now - camera.capture->heartbeat() > kCaptureStall) return false;
  }
  const double last = inference_->last_times().end_to_end_ms;
  const auto limit = inference_->frames() == 0
                         ? std::chrono::duration_cast<std::chrono::milliseconds>(kFirstFrameStall)
                         : kInferenceStall + std::chrono::milliseconds(static_cast<long>(5 * last));
  return now - inference_->heartbeat() < limit;
}

void Service::announce_ready() {
  if (ready_sent_) return;
  ready_sent_ = true;
  notifier_.ready();
  const bool flowing = inference_->frames() > 0;
  std::string waiting;
  for (const CameraRun& camera : cameras_) {
    const SourceStatus source = camera.capture->status();
    if (source.state == SourceState::kStreaming) continue;
    waiting += (waiting.empty() ? "" : "; ") +
               (cameras_.size() > 1 ? "camera " + camera.config.name + ": " : std::string()) +
               source_error(source);
  }
  events_.emit(config::LogLevel::kInfo, fieldlog::EventKind::kReady,
               flowing ? "ready: frames are flowing" : "ready, waiting for the source: " + waiting,
               {{"startup_s", text::rounded(seconds_since(started_), 3)}});
  update_status_line(true);
}

void Service::ping_watchdog() {
  if (watchdog_ok()) notifier_.watchdog();
}

void Service::on_tick() {
  const auto status = refresh_status();
  std::vector<SourceState> states;
  for (const CameraStatus& c : status->cameras) states.push_back(c.source.state);
  if (status->inference.frames > 0 ||
      std::find(states.begin(), states.end(), SourceState::kLost) != states.end()) {
    announce_ready();
  }
  // A camera lost or back is told at once, not at the line's next refresh (up to 5 s later).
  const bool source_changed = states != source_states_;
  source_states_ = std::move(states);
  send_status_line(*status, source_changed);
}

std::shared_ptr<const DaemonStatus> Service::refresh_status() {
  auto status = std::make_shared<const DaemonStatus>(build_status());
  std::lock_guard lock(status_mutex_);
  status_ = status;
  return status;
}

std::shared_ptr<const DaemonStatus> Service::status() const {
  std::lock_guard lock(status_mutex_);
  return status_;
}

DaemonStatus Service::build_status() const {
  const auto model = inference_->model();
  const config::FieldSpec& imgsz = *config::find_field("model.imgsz");
  DaemonStatus s{.version = std::string(version()),
                 .state = reloading_    ? DaemonState::kReloading
                          : ready_sent_ ? DaemonState::kRunning
                                        : DaemonState::kStarting,
                 .host = host_name(),
                 .config_file = options_.config_file,
                 .uptime_s = seconds_since(started_),
                 .status_line = {},
                 .model = {.name = model->name,
                           .precision = model->precision,
                           .file = model->path,
                           .input_width = model->input_width,
                           .input_height = model->input_height,
                           .imgsz = config::format_field(imgsz, imgsz.fetch(config_)),
                           .wanted = config_.model.precision,
                           .pending = model_->pending_summary(),
                           .warnings = model->warnings,
                           .automatic = model_->auto_status(),
                           .precision_override = {}},
                 .cameras = {},
                 .inference = inference_->status(),
                 .threads_mode = config_.threads.mode,
                 .device = telemetry_->latest(),
                 .outputs = {},
                 .last_error = {},
                 .int8_checks = checks_ ? checks_->figures() : std::nullopt};
  for (const CameraRun& camera : cameras_) {
    const FrameHub::Figures f = camera.capture->figures();
    CameraStatus c{.name = camera.config.name,
                   .source = camera.capture->status(),
                   .detect_fps_limit = camera.config.detect_fps,
                   .camera_fps = f.camera_fps,
                   .detection_fps = f.detection_fps,
                   .skipped_fps = f.skipped_fps,
                   .detected = f.detected,
                   .skipped = f.skipped,
                   .motion = camera.stage->motion().status(),
                   .warning = {}};
    // Measured only once frames flow for a while: a camera slower than its detect_fps is
    // detected at every frame it gives.
    if (c.detect_fps_limit > 0 && c.source.frames > 100 && c.camera_fps > 0 &&
        c.camera_fps < 0.9 * c.detect_fps_limit) {
      c.warning = "detect_fps " + text::fixed(c.detect_fps_limit, 1) +
                  " is above what the camera delivers (" + text::fixed(c.camera_fps, 1) +
                  " fps): every frame it gives is detected";
    }
    s.cameras.push_back(std::move(c));
  }
  if (precision_override_) {
    s.model.precision_override = {precision_override_->value.value,
                                  precision_override_->value.origin};
  }
  for (const auto& p : publishers_) s.outputs.push_back({std::string(p->name()), p->status()});
  if (!last_error_.empty()) s.last_error = LastError{last_error_time_, last_error_};
  s.status_line = status_line(s);
  return s;
}
std::string Service::status_line(const DaemonStatus& s) const {
  if (s.state == DaemonState::kReloading) return "reloading " + s.config_file.string();
  // "auto int8": chosen by measurement rather than asked for.
  std::string line = std::string(s.model.wanted == config::Precision::kAuto ? "auto " : "") +
                     runtime::precision_name(s.model.precision) + " " + s.model.name + " " +
                     std::to_string(s.model.input_width) + "x" +
                     std::to_string(s.model.input_height);
  const int threads = s.inference.threads;
  line += ", " + std::to_string(threads) + (threads == 1 ? " thread" : " threads");
  if (!s.inference.settled) line += " (exploring)";
  // Two decimals below 1: a device doing a frame every 10 s reads 0.10, not 0.1 or 0.0.
  const double fps = s.inference.fps;
  line += ", " + text::fixed(fps, fps < 1 ? 2 : 1) + " fps";
  if (s.device) {
    if (const auto c = s.device->max_celsius()) line += ", " + text::fixed(*c, 1) + " C";
    if (s.device->throttle && s.device->throttle->any_now()) line += ", THROTTLED";
    if (s.device->power_w) line += ", " + text::fixed(*s.device->power_w, 2) + " W";
  }
  for (const CameraStatus& c : s.cameras) {
    if (c.source.state == SourceState::kStreaming) continue;
    line += "; " + (s.cameras.size() > 1 ? "camera " + c.name + " " : std::string("source ")) +
            std::string(state_name(c.source.state));
    if (c.source.retry_in_s) line += ", retrying in " + text::fixed(*c.source.retry_in_s, 0) + " s";
  }
  if (!s.model.pending.empty()) line += "; " + s.model.pending;
  if (!s.model.warnings.empty()) {
    line += "; the model file has " + std::to_string(s.model.warnings.size()) +
            " problem(s): yolo-edge inspect --lint " + s.model.file.string();
  }
  for (const OutputStatus& o : s.outputs) {
    if (o.status.contains("warning"))
      line += "; " + o.name + ": " + o.status["warning"].get<std::string>();
  }
  if (s.last_error)
    line += "; " + s.last_error->message.substr(0, s.last_error->message.find('\n'));
  return line;
}
void Service::update_status_line(bool force) {
  send_status_line(*refresh_status(), force);
}

void Service::send_status_line(const DaemonStatus& status, bool force) {
  const auto now = Clock::now();
  if (!force && now - status_sent_ < kStatusMin) return;
  const std::string& line = status.status_line;
  if (!force && line == last_status_line_ && now - status_sent_ < kStatusRefresh) return;
  notifier_.status(line);
  last_status_line_ = line;
  status_sent_ = now;
}

}  // namespace yolo::daemon
