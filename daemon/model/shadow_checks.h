// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "daemon/core/events.h"
#include "daemon/core/frame_result.h"
#include "daemon/core/queued_output.h"
#include "daemon/model/precision_auto.h"
#include "detector/check_budget.h"
#include "detector/detector.h"
#include "detector/drift_watch.h"
#include "detector/rolling_agreement.h"

namespace yolo::daemon {

// What the checks are told by the config (the checks and detect sections, model.auto_min_map50).
struct ShadowSettings {
  bool enabled = false;
  double budget_share = 0.02;
  std::chrono::seconds max_interval{std::chrono::minutes(5)};
  detector::RollingWindow window;
  detector::DriftOptions drift;
  // The detect section's thresholds: FP32 detects as the daemon does; INT8 down to
  // vision::kPredictionConf (detector::prediction_decode), as compare does.
  vision::DecodeOptions decode;
};

// The model both precisions of which are checked, from the model manager: the FP32 file and an
// INT8 file of it, as the daemon loads them. The checks build engines of their own (one thread
// each), so they never share a pool with inference.
struct ShadowPair {
  detector::DetectorOptions fp32;
  detector::DetectorOptions int8;
  // The precision the daemon runs: the checks judge INT8 either way (running FP32: how much would
  // INT8 lose here?).
  runtime::Precision running = runtime::Precision::kInt8;
  // Counts the INT8 files a requantize made: one replaced in place is another file all the same.
  std::uint64_t int8_version = 0;

  bool same_files(const ShadowPair& other) const;
};

// What the checks know, as the status, the metrics and the page show it.
struct ShadowSnapshot {
  bool enabled = false;
  // Why no check runs (turned off, no INT8 file of the model); empty when they can.
  std::string idle_reason;
  std::string fp32_file;
  std::string int8_file;
  std::filesystem::path int8_path;
  std::chrono::seconds window{};
  // The precision the daemon runs (FP32: the checks then say what INT8 would lose); none without
  // a pair.
  std::optional<runtime::Precision> running;
  long checks_total = 0;
  // Checks in the rolling window, FP32's boxes in them, and their agreement (empty: nothing
  // judged yet) with what it is (judged mAP50 or box-weighted AP50).
  long window_checks = 0;
  long window_fp32_boxes = 0;
  std::optional<double> agreement;
  std::string measure;
  std::optional<double> box_ap50;
  std::optional<double> score_mad;
  // The agreement in six slices of the window, oldest first.
  std::vector<std::optional<double>> trend;
  // Per class over the window: id, name, FP32's boxes, INT8's matched, AP50.
  struct Class {
    int id = 0;
    std::string name;
    long fp32_boxes = 0;
    long int8_boxes = 0;
    long matched = 0;
    double ap50 = 0;
  };
  std::vector<Class> classes;
  double used_share = 0;
  double budget_share = 0;
  bool starved = false;
  double last_check_ms = 0;
  std::string drift_phase;
  std::string drift_explanation;
  // Why the pair cannot be checked (an engine that cannot be built, an INT8 file of another
  // model): until the model changes.
  std::string warning;
};

nlohmann::json to_json(const ShadowSnapshot& s);

// INT8 checked against FP32 on the camera's own frames while the daemon runs (issue 41). Now and
// then a frame the daemon detected on is run again by both precisions of its model on this
// output's own thread, at idle priority (SCHED_IDLE: only time no other thread wants), FP32's
// detections the truth and INT8's decoded as compare decodes them; the agreement over a rolling
// window is what the status, the metrics, the field log and the drift watch read. Inference never
// waits: a frame is asked for only when the budget says a check is due and none is under way,
// and handing it over only queues it. A check due only because max_interval has passed runs at
// normal priority (nice 19), so a device busy all the time is still judged.
class ShadowChecks
    : public QueuedOutput<std::shared_ptr<const FrameResult>, ShadowSettings, ShadowSnapshot> {
 public:
  // Called on the checks' thread when the drift watch acts (switches to FP32); must
  // only hand the request over.
  using Act = std::function<void(const detector::DriftWatch::Verdict&)>;

  ShadowChecks(Events& events, Act act);
  ~ShadowChecks() override;

  void configure(const config::Config& config) override;
  // From the model manager, whenever what runs changes: the pair to check, or none (no INT8 file
  // of the running model).
  void set_pair(std::optional<ShadowPair> pair, std::string idle_reason = "");
  // From the model manager: the requantize the drift watch asked for ended; `failure` empty when
  // the new file passed and runs, else why not (the drift watch then waits before asking again).
  void requantize_ended(std::optional<std::string> failure);

  // What the checks found of the INT8 file while FP32 ran (precision auto is re-judged on it);
  // empty while INT8 runs or no check can run.
  std::optional<LiveAgreement> live_agreement() const;
  // The figures the field log records; empty while no check can run.
  std::optional<Int8CheckFigures> figures() const;

  bool wants_frame(const FrameResult& result) const override;
  void publish(std::shared_ptr<const FrameResult> result) override;
  nlohmann::json status() const override;
  void metrics(MetricsSink& sink) const override;
  bool stop() override;

 private:
  struct Requests;
  struct Checker;

  void run() override;
  // The settings and the pair handed over since the last call; whether there were any.
  bool take_changes(Checker& c);
  // One check on `result`'s frame (building the pair's engines first when needed).
  void check(Checker& c, const FrameResult& result);
  // Builds the pair's engines; throws when they cannot be built or do not match.
  void build(Checker& c);
  // Says what the drift watch decided and hands it to the daemon.
  void act(Checker& c, const detector::DriftWatch::Verdict& v);
  // The int8_drift event: the drift watch's phase, the action and the floor, with `reason`.
  void say_drift(Checker& c, config::LogLevel level, const std::string& reason);
  void report_state(Checker& c);

  Events& events_;
  Act act_;
  std::unique_ptr<Requests> requests_;
  // What wants_frame() reads on the inference thread without a lock.
  std::atomic<bool> active_{false};
  std::atomic<bool> busy_{false};
  std::atomic<std::int64_t> next_due_ns_{0};
  // The checks' thread, so stop() can raise its priority and let a check under way end.
  std::atomic<int> thread_id_{0};
};

}  // namespace yolo::daemon
