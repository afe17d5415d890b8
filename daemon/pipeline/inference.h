// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "daemon/base/worker.h"
#include "daemon/core/events.h"
#include "daemon/core/frame_result.h"
#include "daemon/core/publisher.h"
#include "daemon/pipeline/frame_hub.h"
#include "daemon/pipeline/thread_controller.h"
#include "daemon/pipeline/tracking_stage.h"
#include "detector/detector.h"
#include "detector/precision_trial.h"

namespace yolo::daemon {

// A detector ready to run and what it is.
struct LoadedModel {
  std::unique_ptr<detector::Detector> detector;
  std::shared_ptr<const ModelInfo> info;
  // How long building it took (load, plan, warm-up), for the swap event.
  double build_ms = 0;
};

// How a precision trial ended: its figures (none when it was cancelled: the model changed or the
// daemon stops) and the candidate it ran, handed back so its owner frees or swaps it in.
struct TrialOutcome {
  std::optional<detector::TrialFigures> figures;
  LoadedModel candidate;
  // Why the candidate could not run a frame; empty when it was cancelled or finished.
  std::string error;
};

// The inference thread: takes the frame of the camera whose turn it is (FrameHub), letterboxes,
// runs, decodes, applies NMS, tracks it with the camera's own tracking, times every stage, hands
// the result to every publisher (each queues it and returns), and lets the thread controller pick
// the thread count for the next frame from the work of every camera. A new model is swapped in
// between two frames; the old one is handed to `retire` so freeing it costs this thread nothing.
class Inference {
 public:
  using Retire = std::function<void(std::unique_ptr<detector::Detector>)>;
  // Called on the inference thread when a trial ends; must only hand the outcome over.
  using TrialDone = std::function<void(TrialOutcome)>;

  Inference(Events& events, FrameHub& hub, std::vector<Publisher*> publishers, Retire retire);
  ~Inference();

  void start(LoadedModel model, const vision::DecodeOptions& decode, const ThreadPolicy& policy);
  // Runs `model` from the next frame on.
  void swap_in(LoadedModel model);
  // From the next frame on, runs `candidate` beside the current model on every frame, at each
  // thread count the controller would try (its policy's), and calls `done` with the figures once
  // every count is measured. The current model's results are published as usual meanwhile. A
  // model swapped in or another trial cancels it; stop() drops it.
  void start_trial(LoadedModel candidate, TrialDone done);
  // Cancels a trial under way or about to start (`done` gets no figures).
  void cancel_trial();
  // Thresholds, classes and limits from the next frame on.
  void set_decode(const vision::DecodeOptions& decode);
  // The tracking section from the next frame on: with tracking on, the detector keeps the boxes
  // down to what the tracker takes (each camera's zones and lines are its CameraStage's).
  void set_tracking(const config::TrackingConfig& tracking);
  void set_thread_policy(const ThreadPolicy& policy);
  // The device started or stopped throttling: latencies measured so far no longer hold.
  void throttling_changed(bool throttled);
  bool stop(std::chrono::milliseconds limit);

  // The model running now.
  std::shared_ptr<const ModelInfo> model() const;
  // Results delivered since start.
  std::int64_t frames() const { return frames_.load(); }
  // Latency per stage over the last results.
  InferenceStatus status() const;
  // When the loop last went round (a frame done, or a wait for one that timed out).
  std::chrono::steady_clock::time_point heartbeat() const;
  // When the last result was delivered (epoch when none yet).
  std::chrono::steady_clock::time_point last_result() const;
  // Results per second over the last few seconds.
  double fps() const;
  // The stage times of the last result.
  StageTimes last_times() const;
  // The size of the last frame taken (empty before the first): what model.imgsz auto sizes the
  // network input for.
  cv::Size frame_size() const;

 private:
  // A swap waiting for the first result of the new model, which the swap event reports.
  struct PendingSwap {
    std::shared_ptr<const ModelInfo> from;
    std::shared_ptr<const ModelInfo> to;
    double build_ms = 0;
    std::int64_t last_index = -1;
    std::chrono::steady_clock::time_point last_done;
    // The mean interval between results before the swap (0 when unknown).
    double interval_ms = 0;
  };

  // A precision trial under way.
  struct Trial {
    detector::PrecisionTrial trial;
    LoadedModel candidate;
    TrialDone done;
  };
  struct TrialRequest {
    LoadedModel candidate;
    TrialDone done;
  };

  void run();
  void apply_pending();
  // Cameras without a frame lately: their tracking ends tracks by time and applies resets
  // (TrackingStage::idle); at most every kIdlePeriod.
  void tracking_idle();
  // Ends the trial under way, handing back its figures (when it finished), its candidate and
  // what went wrong.
  void end_trial(bool finished, std::string error);
  void process(vision::Frame& frame, const FrameHub::Taken& taken);
  // The decode the detector runs: decode_, with the threshold lowered to what the tracker keeps
  // while tracking is on.
  vision::DecodeOptions detector_decode() const;
  void record(const ThreadDecision& decision);
  void report_swap(std::int64_t first_index, std::chrono::steady_clock::time_point first_done,
                   double first_frame_ms);

  Events& events_;
  FrameHub& hub_;
  std::vector<Publisher*> publishers_;
  Retire retire_;
  Worker worker_;
  std::atomic<bool> stopping_{false};

  // Owned by the inference thread once started.
  LoadedModel current_;
  std::optional<ThreadController> controller_;
  vision::DecodeOptions decode_;
  config::TrackingConfig tracking_;
  std::chrono::steady_clock::time_point last_idle_{};
  std::optional<PendingSwap> swap_;
  std::optional<Trial> trial_;
  std::int64_t last_index_ = -1;
  std::string last_failure_;

  // Hand-over from other threads, applied between two frames (taken whole by apply_pending).
  struct Pending {
    std::optional<LoadedModel> model;
    std::optional<vision::DecodeOptions> decode;
    std::optional<config::TrackingConfig> tracking;
    std::optional<ThreadPolicy> policy;
    std::optional<bool> throttled;
    std::optional<TrialRequest> trial;
    bool cancel_trial = false;
  };
  mutable std::mutex pending_mutex_;
  Pending pending_;

  // What status() shows, written by the inference thread.
  mutable std::mutex status_mutex_;
  std::shared_ptr<const ModelInfo> model_;
  std::deque<std::chrono::steady_clock::time_point> recent_;
  std::optional<ThreadDecision> last_decision_;
  int threads_ = 0;
  bool settled_ = false;
  int trial_frames_left_ = 0;
  StageTimes last_times_;
  // The stage times of the last kRecentResults results, oldest first.
  std::deque<StageTimes> recent_times_;

  std::atomic<std::int64_t> frames_{0};
  // Width and height of the last frame taken, packed as width << 32 | height.
  std::atomic<std::int64_t> frame_size_{0};
  std::atomic<std::int64_t> heartbeat_ns_{0};
  std::atomic<std::int64_t> last_result_ns_{0};
};

// The results a swap cost: how many intervals the gap between the last result before it and the
// first after held beyond one. An interval is what the stream was doing before (a slow camera
// leaves long gaps that lose nothing), or the new model's first frame when that took longer (a
// slower model is not a loss). Skipped camera frames are not counted: inference slower than the
// camera skips frames all the time. 0 when fewer than two results came before (no pace known).
std::int64_t results_lost(double gap_ms, double interval_ms, double first_frame_ms);

// Results per second at `now` from the times results were delivered (oldest first): over the
// last 3 s, or the last 3 results when fewer came in that time, so a source slower than a frame
// a second still reads right (0.1 at 0.1 FPS); it falls when results stop coming.
double results_per_second(const std::deque<std::chrono::steady_clock::time_point>& times,
                          std::chrono::steady_clock::time_point now);

}  // namespace yolo::daemon
