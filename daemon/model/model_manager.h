// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "daemon/base/worker.h"
#include "daemon/core/daemon_status.h"
#include "daemon/core/events.h"
#include "daemon/model/int8_maker.h"
#include "daemon/model/model_files.h"
#include "daemon/model/model_plan.h"
#include "daemon/model/precision_auto.h"
#include "daemon/model/requantizer.h"
#include "daemon/model/reservoir.h"
#include "daemon/model/shadow_checks.h"
#include "daemon/pipeline/inference.h"
#include "runtime/engine/engine.h"

namespace yolo::daemon {

// Keeps the model the config asks for running. Builds each new model on its own thread, beside
// the running one and on the same thread pools, then hands it to the inference thread, which
// swaps it in between two frames. For precision int8 with quantize: auto and no INT8 file yet, it
// runs the FP32 model meanwhile, waits for the calibration reservoir to fill, quantizes in a
// low-priority child process and then switches. A model that fails to load is reported and the
// running one stays. The manager owns the thread and does what its parts decide: plan_model()
// what runs, Int8Maker the INT8 file, PrecisionAuto the trials of precision auto.
class ModelManager {
 public:
  struct Options {
    // Where INT8 models made here are written when model.int8_path is empty: a folder of the
    // daemon's own state directory, created by the daemon. Not beside the models an admin puts
    // in (README: `sudo install -D ... /var/lib/yolo-edge/models/`), which root owns.
    std::filesystem::path int8_dir;
    // The yolo-edge binary that quantizes.
    std::filesystem::path cli;
    runtime::SharedThreadPools pools;
    // Told the pair of models to judge whenever what runs changes; none: no checks.
    ShadowChecks* checks = nullptr;
  };

  ModelManager(Events& events, Options options, CalibrationReservoir& reservoir);
  ~ModelManager();

  // Loads what `model` asks for on the calling thread (start-up): the FP32 model when an INT8
  // one must be made first. Throws what loading throws (runtime::ModelError, ...).
  LoadedModel load_initial(const config::ModelConfig& model);
  // Starts the thread that builds, quantizes and hands new models to `inference`.
  void start(Inference& inference);
  // A valid reload: builds what changed, and tries again what failed.
  void reconfigure(const config::ModelConfig& model);
  // The INT8 checks found the INT8 file drifting (checks.drift_action: requantize): runs FP32
  // and makes a new INT8 file from the camera's frames; `why` is the drift watch's reason. Any
  // thread; ignored while a requantize is under way.
  void requantize(std::string why);
  // The INT8 checks find the INT8 file agreeing again after a failed requantize: it runs again.
  // Any thread.
  void drift_over();
  // Frees a detector the inference thread let go of, here rather than on that thread.
  void retire(std::unique_ptr<detector::Detector> detector);
  bool stop(std::chrono::milliseconds limit);

  // One phrase for the status line when INT8 is wanted but not running yet, or precision auto
  // has not decided yet, else "".
  std::string pending_summary() const;
  // For precision auto: its state ("waiting for the INT8 model", "measuring", "decided",
  // "undecided") and what the last trial chose and why (detector::to_json); nothing otherwise.
  std::optional<ModelStatus::Auto> auto_status() const;

 private:
  // The plan for `model`, with the frames the camera delivers (none before start()).
  Plan plan(const config::ModelConfig& model);
  LoadedModel build(const ModelTarget& target, const config::ModelConfig& model);
  void run();
  void step();
  // Builds p.run and swaps it in when it is not what runs, unless it failed in this generation.
  void step_run(const config::ModelConfig& model, const Plan& p, std::uint64_t generation);
  // Precision auto: acts on a trial that ended, or does what PrecisionAuto::next() asks.
  void step_auto(const config::ModelConfig& model, const Plan& p);
  // The config asks for precision auto.
  bool auto_wanted() const;
  // Tells the INT8 checks which pair of models to judge (none without an INT8 file).
  void share_pair(const Plan& p);
  // A requantize asked for, under way or ended: starts it, follows it, and puts the new file in
  // place once it passed.
  void step_requantize(const config::ModelConfig& model, std::optional<std::string> asked,
                       bool agrees_again);
  // The requantize's new file in place of the INT8 file it replaces, and FP32 held while a
  // requantize is under way or failed.
  void apply_requantize(Plan& p) const;

  Events& events_;
  Options options_;
  Inference* inference_ = nullptr;
  Int8Maker int8_;
  PrecisionAuto auto_;
  Requantizer requantizer_;
  Worker worker_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  config::ModelConfig wanted_;
  // Bumped by every reconfigure(): a failure is retried only after a reload.
  std::uint64_t generation_ = 0;
  std::vector<std::unique_ptr<detector::Detector>> retired_;
  // From the checks: a requantize asked for (its reason), the INT8 file agreeing again.
  std::optional<std::string> requantize_asked_;
  bool drift_over_ = false;

  // Owned by the manager's thread (and load_initial(), before it starts).
  std::optional<ModelTarget> running_;
  ModelFileCache files_;
  std::optional<std::pair<ModelTarget, std::uint64_t>> failed_build_;
  std::string last_error_;
  // The requantize's state: FP32 runs instead of the INT8 file while held; a new file made for an
  // admin's model.int8_path (first) runs instead of it (second) until the model changes; the
  // count of new files, which tells the checks a file replaced in place is another file.
  bool hold_fp32_ = false;
  std::optional<std::pair<std::filesystem::path, std::filesystem::path>> replaced_;
  std::uint64_t int8_version_ = 0;
};

}  // namespace yolo::daemon
