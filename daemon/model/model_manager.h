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

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "daemon/base/worker.h"
#include "daemon/core/daemon_status.h"
#include "daemon/core/events.h"
#include "daemon/model/quantize_job.h"
#include "daemon/model/reservoir.h"
#include "daemon/pipeline/inference.h"
#include "detector/precision_trial.h"
#include "runtime/engine/engine.h"

namespace yolo::daemon {

// Which model file runs, at which precision and input size: what a reload compares to decide
// whether to build.
struct ModelTarget {
  std::filesystem::path file;
  // kFp32 or kInt8: model.precision file resolved from the file.
  config::Precision precision = config::Precision::kFp32;
  // Resolved for the model: kFixed, or kModel for its own size.
  runtime::InputSize imgsz;
  std::filesystem::path labels;
  config::Decoder decoder = config::Decoder::kAuto;

  bool operator==(const ModelTarget&) const = default;
};

// Keeps the model the config asks for running. Builds each new model on its own thread, beside
// the running one and on the same thread pools, then hands it to the inference thread, which
// swaps it in between two frames. For precision int8 with quantize: auto and no INT8 file yet, it
// runs the FP32 model meanwhile, waits for the calibration reservoir to fill, quantizes in a
// low-priority child process and then switches. A model that fails to load is reported and the
// running one stays.
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
  enum class Int8State { kNotWanted, kRunning, kCollecting, kQuantizing, kFailed };

  struct Plan {
    // The FP32 model.
    ModelTarget fp32;
    // What should run now.
    ModelTarget run;
    // The INT8 file to make first (empty when nothing needs making).
    std::filesystem::path make;
    // Precision auto: the INT8 model to measure against FP32, once its file exists.
    std::optional<ModelTarget> candidate;
  };

  // What precision auto decided for one pair of models.
  struct AutoDecision {
    ModelTarget fp32;
    ModelTarget int8;
    detector::PrecisionChoice choice;
    nlohmann::json json;
    // When an undecided trial is run again.
    std::chrono::steady_clock::time_point retry_at;
  };

  Plan plan(const config::ModelConfig& model);
  // The file quantize: auto writes for `model`: model.int8_path, or a name in the models folder
  // made from the FP32 file's name, a hash of its contents and the input size, so an edited model
  // is quantized again.
  std::filesystem::path made_int8_path(const config::ModelConfig& model,
                                       const runtime::InputSize& imgsz);
  // What model.path is (static INT8 or not, its input), read again only when the file changes.
  const runtime::ModelFile& model_file(const std::filesystem::path& path);
  // model.imgsz resolved for model.path and, for auto, the frames the camera delivers (the
  // model's own size until the first frame).
  runtime::InputSize input_size(const config::ModelConfig& model);
  LoadedModel build(const ModelTarget& target, const config::ModelConfig& model);
  void run();
  void step();
  // `imgsz`: the input size the model runs at, which the calibration frames are letterboxed to.
  void step_quantization(const config::ModelConfig& model, const std::filesystem::path& make,
                         const runtime::InputSize& imgsz);
  void set_int8(Int8State state, std::string progress, std::string error = "");
  // Precision auto: starts a trial when the pair has no decision (or an undecided one is due),
  // and acts on a trial that ended.
  void step_auto(const config::ModelConfig& model, const Plan& p);
  void finish_trial(const config::ModelConfig& model, const Plan& p, TrialOutcome outcome);
  // Records a decision, says it (event, status) and swaps INT8 in when it won.
  void decide(const Plan& p, detector::PrecisionChoice choice, nlohmann::json json,
              LoadedModel candidate);

  Events& events_;
  Options options_;
  CalibrationReservoir& reservoir_;
  Inference* inference_ = nullptr;
  Worker worker_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  config::ModelConfig wanted_;
  // Bumped by every reconfigure(): a failure is retried only after a reload.
  std::uint64_t generation_ = 0;
  std::vector<std::unique_ptr<detector::Detector>> retired_;
  // Status, under mutex_.
  std::optional<ModelTarget> running_;
  Int8State int8_state_ = Int8State::kNotWanted;
  std::string int8_progress_;
  std::string int8_error_;

  // Owned by the manager's thread.
  std::unique_ptr<QuantizeJob> job_;
  std::optional<std::pair<ModelTarget, std::uint64_t>> failed_build_;
  std::optional<std::pair<std::filesystem::path, std::uint64_t>> failed_quantize_;
  std::string last_error_;
  // The content hash of the FP32 file, by path, size and modification time.
  struct HashCache {
    std::filesystem::path path;
    std::uintmax_t size = 0;
    std::filesystem::file_time_type mtime{};
    std::uint64_t hash = 0;
  };
  std::optional<HashCache> hash_cache_;
  struct FileCache {
    std::filesystem::path path;
    std::uintmax_t size = 0;
    std::filesystem::file_time_type mtime{};
    runtime::ModelFile file;
  };
  std::optional<FileCache> file_cache_;
  // Precision auto. The decision and the trial's state are read by auto_status(), under mutex_;
  // the outcome is handed over by the inference thread, under mutex_.
  std::optional<AutoDecision> auto_;
  std::optional<ModelTarget> trial_candidate_;
  std::optional<TrialOutcome> trial_outcome_;
};

}  // namespace yolo::daemon
