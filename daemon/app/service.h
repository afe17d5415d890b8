// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "config/config_error.h"
#include "config/config_loader.h"
#include "daemon/app/config_watch.h"
#include "daemon/app/event_loop.h"
#include "daemon/app/notifier.h"
#include "daemon/app/signal_pipe.h"
#include "daemon/core/control_requests.h"
#include "daemon/core/daemon_status.h"
#include "daemon/core/decode_options.h"
#include "daemon/core/event_log.h"
#include "daemon/core/events.h"
#include "daemon/core/logger.h"
#include "daemon/core/publisher.h"
#include "daemon/model/model_manager.h"
#include "daemon/model/reservoir.h"
#include "daemon/pipeline/capture.h"
#include "daemon/pipeline/frame_hub.h"
#include "daemon/pipeline/inference.h"
#include "daemon/pipeline/telemetry_thread.h"
#include "daemon/pipeline/tracking_stage.h"

namespace yolo::daemon {

// What the service is started with, from the command line and the environment.
struct ServiceOptions {
  std::filesystem::path config_file;
  // Calibration frames and the INT8 models made here (systemd's StateDirectory).
  std::filesystem::path state_dir;
  // The yolo-edge binary, which quantizes for quantize: auto.
  std::filesystem::path cli;
};

// Exit statuses of yolo-edged.
enum ServiceExit { kExitOk = 0, kExitFailure = 1, kExitConfig = 78 };

// The daemon: owns every thread (capture, inference, model building, telemetry, and each
// publisher's) and runs the control loop on the calling thread, the way systemd's own small
// daemons read: load the config, build the parts, start them, then one event loop (sd-event)
// until asked to stop, whose sources are each one duty: the signals (SIGHUP reloads, SIGTERM
// stops), requests from the API and buttons, the config file watch and its debounce, and timers
// for the status (and with it READY and the status line), the outputs' stats, the watchdog and
// READY at the latest.
class Service {
 public:
  explicit Service(ServiceOptions options);
  ~Service();
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  // The whole life of the daemon; returns its exit status (ServiceExit). `signals` forwards
  // SIGHUP, SIGTERM and SIGINT; they should be blocked in the calling thread, so the threads it
  // starts inherit that and only the control loop's wait takes them (main does that).
  int run(SignalPipe& signals);
  // True when a thread did not stop in time at exit: the caller must then end the process
  // without running destructors (_exit), which would wait for it.
  bool left_threads_behind() const { return left_behind_; }
  // The status, at most a tick old; thread-safe.
  std::shared_ptr<const DaemonStatus> status() const;

 private:
  int start();
  int control_loop(SignalPipe& signals);
  // Reloads the config file (with the API's precision switch, when one is in force); the reply
  // says what changed or why nothing did.
  ControlReply reload(const std::string& why, std::optional<config::Override> precision = {});
  // A request from the HTTP API or a GPIO button, on the control loop.
  ControlReply serve(const ControlRequest& request);
  // Starts or stops following the config file (config.watch).
  void watch_config(bool on);
  void shutdown(const std::string& why);
  // The control loop's duties, each on its own timer (control_loop).
  // Every kTick: refreshes the status; tells systemd READY once frames flow or the source is
  // found lost; sends the status line when it changed (at once when the source's state did).
  void on_tick();
  // Tells systemd READY=1 (once): frames flow, the source is lost, or kReadyAtLatest passed.
  void announce_ready();
  // Feeds systemd's watchdog while capture and inference are alive.
  void ping_watchdog();
  bool watchdog_ok() const;
  // Sends STATUS= when forced, or when the line changed and kStatusMin passed since the last,
  // or kStatusRefresh passed; update_status_line builds a fresh status for it first.
  void update_status_line(bool force);
  void send_status_line(const DaemonStatus& status, bool force);
  // The line systemd shows for `status`.
  std::string status_line(const DaemonStatus& status) const;
  // Builds the status from every part (control loop only; status() hands out the last one).
  DaemonStatus build_status() const;
  // Builds the status and hands it to status() readers.
  std::shared_ptr<const DaemonStatus> refresh_status();
  config::Config load(std::vector<config::ConfigProblem>* warnings,
                      std::vector<config::Override> overrides = {}) const;
  std::vector<Publisher*> publishers() const;
  // The events and counts an earlier run kept in the state folder (the events into the event
  // log; the counts returned): a file that cannot be read is set aside as NAME.bad, said, and
  // counting starts again.
  std::optional<tracking::Counts> restore_tracking_state();
  struct CameraRun;
  // Starts a camera: its tracking and its capture, served from its first frame.
  CameraRun start_camera(const config::CameraConfig& camera, const config::Config& config);
  // Applies a reload to the cameras: a camera removed stops, one added starts, one changed
  // takes its new settings; the others go on streaming untouched.
  void reconfigure_cameras(const config::Config& next);

  ServiceOptions options_;
  Logger log_;
  Events events_{log_};
  // Tracked-object events, numbered across restarts (STATE/events.json).
  EventLog object_events_{500};
  Notifier notifier_;
  config::Config config_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();

  // Declared in the order they are built; destroyed in reverse.
  std::vector<std::unique_ptr<Publisher>> publishers_;
  CalibrationReservoir* reservoir_ = nullptr;
  ShadowChecks* checks_ = nullptr;
  runtime::SharedThreadPools pools_;
  FrameHub hub_;
  std::unique_ptr<TelemetryThread> telemetry_;
  std::unique_ptr<ModelManager> model_;
  std::unique_ptr<Inference> inference_;
  // One per camera, in the config's order.
  struct CameraRun {
    config::CameraConfig config;
    std::shared_ptr<CameraStage> stage;
    std::unique_ptr<Capture> capture;
  };
  std::vector<CameraRun> cameras_;
  // Captures of removed cameras whose read never returned: destroying one would wait for its
  // thread forever, so they stay until exit, which then leaves them behind (left_threads_behind).
  std::vector<std::unique_ptr<Capture>> stuck_captures_;
  // The counts an earlier run kept: each camera takes its own places' when it starts.
  std::optional<tracking::Counts> restored_counts_;
  std::unique_ptr<ConfigWatch> watch_;
  ControlRequests control_;
  // The control loop (control_loop) and the sources that change with the config: the file
  // watch (config.watch) and its debounce timer.
  std::unique_ptr<EventLoop> loop_;
  EventLoop::Source watch_source_;
  EventLoop::Source reload_after_edit_;

  // A model.precision set through the API or a button: it holds over the file's value until
  // the file's own model.precision changes (the person editing the file has the last word).
  struct PrecisionOverride {
    config::Override value;
    config::Precision file_value;
  };
  std::optional<PrecisionOverride> precision_override_;

  bool ready_sent_ = false;
  bool reloading_ = false;
  std::string last_error_;
  std::string last_status_line_;
  // The cameras' states at the last tick: a change sends the status line at once.
  std::vector<SourceState> source_states_;
  std::chrono::steady_clock::time_point status_sent_{};
  bool left_behind_ = false;
  mutable std::mutex status_mutex_;
  std::shared_ptr<const DaemonStatus> status_;
  // When and what the last error was (a refused reload, a model that failed), for the status.
  std::string last_error_time_;
};

// The threads section with 0 ("one per core") turned into this machine's core count.
ThreadPolicy thread_policy(const config::ThreadsConfig& threads);
// Keys whose values differ between two configs ("model.precision", ...), in schema order.
std::vector<std::string> changed_keys(const config::Config& before, const config::Config& after);

}  // namespace yolo::daemon
