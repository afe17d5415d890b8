// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "daemon/core/events.h"
#include "daemon/model/model_plan.h"
#include "daemon/model/quantize_job.h"
#include "daemon/model/reservoir.h"
#include "vision/metrics.h"

namespace yolo::daemon {

// The calibration reservoir's frames split for a requantize: most to calibrate on, every
// kHeldEvery-th (spread over day and recent frames alike) held back to check the new file on,
// so the check judges it on frames it was not calibrated on.
struct FrameSplit {
  std::vector<std::filesystem::path> calibration;
  std::vector<std::filesystem::path> held;
};
inline constexpr int kHeldEvery = 4;
// The reservoir's JPEG files, in name order, split as above.
FrameSplit split_frames(const std::filesystem::path& reservoir_dir);

// What a requantize makes: `final_file` runs once `candidate` passed its check and was renamed to
// it. A made file (model.int8_path empty, `int8` the made file) is replaced where it is; an
// admin's model.int8_path is never written: the new file goes beside the made ones, named after
// it.
struct RequantizeFiles {
  std::filesystem::path candidate;
  std::filesystem::path final_file;
  // The folder the frames are linked into for the quantizer and the check.
  std::filesystem::path work;
};
RequantizeFiles requantize_files(const config::ModelConfig& model, const ModelTarget& int8,
                                 const std::filesystem::path& int8_dir);

// INT8 made again from the camera's frames when the live checks find the running INT8 file no
// longer fits the scene (checks.drift_action: requantize; issue 41). Links the reservoir's frames
// into a folder of their own (the reservoir goes on replacing its files meanwhile), quantizes in
// a low-priority child (QuantizeJob), then runs FP32 and the new file on the held frames and
// passes it when its agreement (judged mAP50, as precision auto and the checks judge) is at least
// model.auto_min_map50. One try per begin(): whether and when to try again is the drift watch's
// decision. Driven by the model manager's thread; its summary is read from any thread.
class Requantizer {
 public:
  struct Outcome {
    // Empty when the new file passed; else what went wrong, for the log and the page.
    std::optional<std::string> failure;
    // What the check measured ("judged mAP50 0.97 on 16 held frames (FP32: 84 boxes)").
    std::string figures;
  };

  Requantizer(Events& events, CalibrationReservoir& reservoir, std::filesystem::path cli);
  ~Requantizer();

  // Starts making a new INT8 file of `pair` into `files.candidate`; `why` is the drift watch's
  // reason. Returns the outcome at once when it cannot start (too few frames, no folder).
  std::optional<Outcome> begin(const config::ModelConfig& model, const ModelPair& pair,
                               const RequantizeFiles& files, const std::string& why);
  // One step of the try under way: its outcome once it ended, the new file renamed to
  // files().final_file when it passed (the check runs on the calling thread, a few seconds at
  // its priority).
  std::optional<Outcome> step();
  // Ends a try under way without an outcome (a reload changed the model, the daemon stops), and
  // forgets the last failure.
  void cancel();

  bool active() const;
  // What the pair under way is (valid while active()).
  const ModelPair& pair() const { return pair_; }
  const RequantizeFiles& files() const { return files_; }
  // One phrase for the status line while a try is under way or after it failed, else "".
  std::string pending_summary() const;

 private:
  Outcome check();
  // Puts a passed file in place (a failure if it cannot be), removes a failed one, and says so in
  // the summary until the next begin() or cancel().
  Outcome ended(Outcome outcome);
  void set_progress(std::string progress);

  Events& events_;
  CalibrationReservoir& reservoir_;
  const std::filesystem::path cli_;

  // Owned by the calling thread.
  std::unique_ptr<QuantizeJob> job_;
  ModelPair pair_;
  RequantizeFiles files_;
  FrameSplit split_;
  double min_map50_ = 0;

  mutable std::mutex mutex_;
  std::string progress_;
};

// INT8's detections against FP32's (the truth) on `frames`, each detector as `compare` decodes:
// FP32 at its own threshold, INT8 down to vision::kPredictionConf.
vision::Agreement judge_on_frames(const ModelTarget& fp32, const ModelTarget& int8,
                                  const std::vector<std::filesystem::path>& frames);

}  // namespace yolo::daemon
