// SPDX-License-Identifier: Apache-2.0
#include "daemon/pipeline/inference.h"

#include <cmath>
#include <utility>
#include <vector>

#include "fieldlog/keys.h"
#include "text/format.h"
#include "vision/latency_stats.h"

namespace yolo::daemon {

namespace {

using Clock = std::chrono::steady_clock;

// The span over which fps() counts results; fewer than kFpsMinResults in it and the last
// kFpsMinResults count however old, so a source slower than one frame a window still has a rate.
constexpr auto kFpsWindow = std::chrono::seconds(3);
constexpr std::size_t kFpsMinResults = 3;
// How many results the status's latency percentiles are taken over.
constexpr std::size_t kRecentResults = 100;
// How often, and after how long without a frame, a camera's tracks are ended by time.
constexpr auto kIdlePeriod = std::chrono::milliseconds(250);

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

std::string describe(const ModelInfo& m) {
  return m.name + " " + runtime::precision_name(m.precision) + " " + std::to_string(m.input_width) +
         "x" + std::to_string(m.input_height);
}

}  // namespace

double results_per_second(const std::deque<std::chrono::steady_clock::time_point>& times,
                          std::chrono::steady_clock::time_point now) {
  if (times.size() < 2) return 0;
  std::size_t in_window = 0;
  for (auto t : times) in_window += now - t <= kFpsWindow ? 1 : 0;
  const std::size_t n = std::max(in_window, std::min(times.size(), kFpsMinResults));
  const auto first = times[times.size() - n];
  const auto last = times.back();
  // The mean interval of the last n results; once the next result is more than twice that late,
  // half the time since the last, so a source that stopped shows a falling rate (and one late
  // frame of a jittery stream does not).
  const double mean = std::chrono::duration<double>(last - first).count() / double(n - 1);
  const double interval = std::max(mean, std::chrono::duration<double>(now - last).count() / 2);
  return interval > 0 ? 1.0 / interval : 0;
}

std::int64_t results_lost(double gap_ms, double interval_ms, double first_frame_ms) {
  // Fewer than two results before the swap: no pace to judge the gap by.
  if (gap_ms <= 0 || interval_ms <= 0) return 0;
  const double expected = std::max(interval_ms, first_frame_ms);
  return std::max<std::int64_t>(0, std::llround(gap_ms / expected) - 1);
}

Inference::Inference(Events& events, FrameHub& hub, std::vector<Publisher*> publishers,
                     Retire retire)
    : events_(events), hub_(hub), publishers_(std::move(publishers)), retire_(std::move(retire)) {}

Inference::~Inference() {
  stop(std::chrono::milliseconds(5000));
}

void Inference::start(LoadedModel model, const vision::DecodeOptions& decode,
                      const ThreadPolicy& policy) {
  current_ = std::move(model);
  decode_ = decode;
  current_.detector->set_decode(detector_decode());
  controller_.emplace(policy);
  {
    std::lock_guard lock(status_mutex_);
    model_ = current_.info;
  }
  record(controller_->last_decision());
  heartbeat_ns_.store(Clock::now().time_since_epoch().count());
  worker_.start("infer", [this] { run(); });
}

void Inference::swap_in(LoadedModel model) {
  std::lock_guard lock(pending_mutex_);
  if (pending_.model) retire_(std::move(pending_.model->detector));
  pending_.model = std::move(model);
}

void Inference::start_trial(LoadedModel candidate, TrialDone done) {
  std::optional<TrialRequest> superseded;
  {
    std::lock_guard lock(pending_mutex_);
    superseded = std::exchange(pending_.trial, TrialRequest{std::move(candidate), std::move(done)});
  }
  if (superseded)
    superseded->done(TrialOutcome{std::nullopt, std::move(superseded->candidate), ""});
}

void Inference::cancel_trial() {
  std::optional<TrialRequest> cancelled;
  {
    std::lock_guard lock(pending_mutex_);
    cancelled = std::exchange(pending_.trial, std::nullopt);
    pending_.cancel_trial = true;
  }
  if (cancelled) cancelled->done(TrialOutcome{std::nullopt, std::move(cancelled->candidate), ""});
}

void Inference::set_decode(const vision::DecodeOptions& decode) {
  std::lock_guard lock(pending_mutex_);
  pending_.decode = decode;
}

void Inference::set_tracking(const config::TrackingConfig& tracking) {
  std::lock_guard lock(pending_mutex_);
  pending_.tracking = tracking;
}

vision::DecodeOptions Inference::detector_decode() const {
  vision::DecodeOptions d = decode_;
  if (tracking_.enabled) d.conf = std::min(d.conf, static_cast<float>(tracking_.low_score));
  return d;
}

void Inference::set_thread_policy(const ThreadPolicy& policy) {
  std::lock_guard lock(pending_mutex_);
  pending_.policy = policy;
}

void Inference::throttling_changed(bool throttled) {
  std::lock_guard lock(pending_mutex_);
  pending_.throttled = throttled;
}

bool Inference::stop(std::chrono::milliseconds limit) {
  stopping_ = true;
  hub_.close();
  return worker_.stop_within(limit);
}

std::shared_ptr<const ModelInfo> Inference::model() const {
  std::lock_guard lock(status_mutex_);
  return model_;
}

Clock::time_point Inference::heartbeat() const {
  return Clock::time_point(Clock::duration(heartbeat_ns_.load()));
}

Clock::time_point Inference::last_result() const {
  return Clock::time_point(Clock::duration(last_result_ns_.load()));
}

double Inference::fps() const {
  std::lock_guard lock(status_mutex_);
  return results_per_second(recent_, Clock::now());
}

StageTimes Inference::last_times() const {
  std::lock_guard lock(status_mutex_);
  return last_times_;
}

InferenceStatus Inference::status() const {
  const double rate = fps();
  std::lock_guard lock(status_mutex_);
  InferenceStatus s{.frames = frames_.load(),
                    .fps = rate,
                    .threads = threads_,
                    .settled = settled_,
                    .trial_frames_left = trial_frames_left_,
                    .latency_ms = {},
                    .last_decision = last_decision_};
  if (!recent_times_.empty()) {
    for (const auto& stage : kStages) {
      std::vector<double> values;
      values.reserve(recent_times_.size());
      for (const StageTimes& t : recent_times_) values.push_back(t.*stage.ms);
      const vision::LatencyStats stats = vision::summarize(std::move(values));
      s.latency_ms.push_back({.p50 = stats.p50, .p90 = stats.p90});
    }
  }
  return s;
}
void Inference::run() {
  vision::Frame frame;
  while (!stopping_) {
    heartbeat_ns_.store(Clock::now().time_since_epoch().count());
    apply_pending();
    const std::optional<FrameHub::Taken> taken = hub_.take(frame, kIdlePeriod);
    if (!taken) {
      tracking_idle();
      continue;
    }
    // What arrived while this thread waited applies to this frame already.
    apply_pending();
    process(frame, *taken);
    // Counted from the end of its frame: a frame slower than kIdlePeriod is no silence.
    taken->camera->last_taken = Clock::now();
    // The other cameras, when one of them has been silent for a while.
    tracking_idle();
  }
}

void Inference::tracking_idle() {
  const auto now = Clock::now();
  if (now - last_idle_ < kIdlePeriod) return;
  last_idle_ = now;
  for (const std::shared_ptr<CameraStage>& camera : hub_.cameras()) {
    // Only a camera that gave no frame for a while: its tracks end by time. One whose frames
    // come, however old they are when taken (a file read unpaced on a busy machine), is left to
    // the frames' own times.
    if (now - camera->last_taken < kIdlePeriod) continue;
    TrackingStage& tracking = camera->tracking();
    if (auto settings = camera->take_settings()) tracking.configure(*settings);
    auto result = std::make_shared<FrameResult>();
    result->camera = camera->name();
    result->index = last_index_;
    result->wall = std::chrono::system_clock::now();
    result->model = current_.info;
    if (!tracking.idle(*result, now)) continue;
    std::shared_ptr<const FrameResult> shared = std::move(result);
    for (Publisher* p : publishers_) p->publish(shared);
  }
}

void Inference::apply_pending() {
  Pending pending;
  {
    std::lock_guard lock(pending_mutex_);
    pending = std::exchange(pending_, {});
  }
  auto& [model, decode, tracking, policy, throttled, trial, cancel_trial] = pending;
  std::vector<ThreadDecision> decisions;
  if (tracking) tracking_ = *tracking;
  if (decode || tracking) {
    if (decode) decode_ = *decode;
    current_.detector->set_decode(detector_decode());
    if (trial_) trial_->candidate.detector->set_decode(detector::prediction_decode(decode_));
  }
  // A trial measures the candidate against the model running: a new model ends it.
  if (trial_ && (cancel_trial || model || trial)) end_trial(false, "");
  if (model) {
    double interval_ms = 0;
    {
      std::lock_guard lock(status_mutex_);
      if (recent_.size() >= 2) {
        interval_ms = ms_between(recent_.front(), recent_.back()) / double(recent_.size() - 1);
      }
    }
    swap_ = PendingSwap{current_.info,
                        model->info,
                        model->build_ms,
                        last_index_,
                        Clock::time_point(Clock::duration(last_result_ns_.load())),
                        interval_ms};
    retire_(std::move(current_.detector));
    current_ = std::move(*model);
    current_.detector->set_decode(detector_decode());
    {
      std::lock_guard lock(status_mutex_);
      model_ = current_.info;
    }
    if (auto d = controller_->restart("the model changed to " + describe(*current_.info))) {
      decisions.push_back(std::move(*d));
    }
  }
  if (policy) {
    if (auto d = controller_->set_policy(*policy)) decisions.push_back(std::move(*d));
  }
  if (throttled) {
    if (auto d = controller_->throttling_changed(*throttled)) decisions.push_back(std::move(*d));
  }
  for (const auto& d : decisions) record(d);
  if (trial) {
    const ThreadPolicy& policy = controller_->policy();
    const detector::TrialPlan plan = detector::trial_plan(
        policy.mode == config::ThreadMode::kFixed ? std::vector<int>{policy.fixed}
                                                  : detector::thread_counts_to_try(policy.max));
    trial->candidate.detector->set_decode(detector::prediction_decode(decode_));
    trial_.emplace(Trial{detector::PrecisionTrial(plan, decode_.conf), std::move(trial->candidate),
                         std::move(trial->done)});
    std::lock_guard lock(status_mutex_);
    trial_frames_left_ = trial_->trial.frames_left();
  }
}

void Inference::end_trial(bool finished, std::string error) {
  TrialOutcome outcome;
  if (finished) outcome.figures = trial_->trial.figures();
  outcome.candidate = std::move(trial_->candidate);
  outcome.error = std::move(error);
  TrialDone done = std::move(trial_->done);
  trial_.reset();
  {
    std::lock_guard lock(status_mutex_);
    trial_frames_left_ = 0;
  }
  done(std::move(outcome));
}

void Inference::record(const ThreadDecision& d) {
  {
    std::lock_guard lock(status_mutex_);
    last_decision_ = d;
    threads_ = controller_->threads();
    settled_ = controller_->settled();
  }
  events_.emit(config::LogLevel::kInfo, fieldlog::EventKind::kThreads, "threads: " + d.reason,
               to_json(d));
}

cv::Size Inference::frame_size() const {
  const std::int64_t packed = frame_size_.load();
  return {static_cast<int>(packed >> 32), static_cast<int>(packed & 0xFFFFFFFF)};
}

void Inference::process(vision::Frame& frame, const FrameHub::Taken& taken) {
  TrackingStage& tracking = taken.camera->tracking();
  if (auto settings = taken.camera->take_settings()) tracking.configure(*settings);
  const auto start = Clock::now();
  frame_size_.store(std::int64_t{frame.bgr.cols} << 32 | frame.bgr.rows);
  detector::Detector& detector = *current_.detector;
  const int threads = trial_ ? trial_->trial.threads() : controller_->threads();
  detector.engine().set_threads(threads);

  auto result = std::make_shared<FrameResult>();
  detector::DetectTimings t;
  vision::Detections detections;
  const auto run_model = [&](const cv::Mat& image, detector::DetectTimings* timings) {
    return trial_ ? trial_->trial.run(detector, *trial_->candidate.detector, image, timings)
                  : detector.detect(image, timings);
  };
  // Model runs this frame took: 1 without motion; with it, 0 (still), 1 or a crop each.
  int runs = 1;
  try {
    if (detector::MotionGate* gate = taken.camera->motion().gate()) {
      // A trial compares the precisions on whole frames.
      detector::GatedDetections gated = gate->detect(
          frame.bgr, frame.scene_time, {current_.info->input_width, current_.info->input_height},
          vision::nms_options(decode_), run_model, trial_.has_value());
      taken.camera->motion().record(gated);
      result->motion = FrameMotion{gated.pass, gated.regions, gated.motion.ms};
      detections = std::move(gated.detections);
      t = gated.timings;
      runs = gated.runs;
    } else {
      detections = run_model(frame.bgr, &t);
    }
  } catch (const std::exception& e) {
    // A candidate that cannot run a frame has lost its trial; the running model goes on.
    if (trial_) {
      end_trial(false, e.what());
      return;
    }
    // A frame the model cannot take (it should not happen) is skipped, said once per message.
    const std::string message = std::string("frame ") + std::to_string(frame.index) +
                                " could not be processed: " + e.what();
    if (e.what() != last_failure_) {
      last_failure_ = e.what();
      events_.emit(config::LogLevel::kError, fieldlog::EventKind::kFrameFailed, message,
                   {{"error", e.what()}});
    }
    return;
  }
  const auto done = Clock::now();
  if (trial_) {
    // Before the result is published, so whoever sees it sees the trial's progress too.
    std::lock_guard lock(status_mutex_);
    trial_frames_left_ = trial_->trial.frames_left();
  }
  result->camera = taken.camera->name();
  result->index = frame.index;
  result->captured = frame.timestamp;
  result->scene_time = frame.scene_time;
  result->wall = std::chrono::system_clock::now();
  result->times = {ms_between(frame.timestamp, start), t.preprocess_ms, t.inference_ms,
                   t.postprocess_ms, ms_between(frame.timestamp, done)};
  result->model = current_.info;
  result->threads = threads;
  result->dropped = taken.skipped;
  if (tracking.enabled()) {
    // The tracker also takes the boxes under detect.conf (down to tracking.low_score), to keep
    // tracks through dips in confidence; every output sees only those at or above it, as before.
    for (const vision::Detection& d : detections) {
      if (d.score > decode_.conf) result->detections.push_back(d);
    }
    const auto tracked = Clock::now();
    tracking.process(*result, detections, frame.bgr.size());
    const double tracking_ms = ms_between(tracked, Clock::now());
    result->times.postprocess_ms += tracking_ms;
    result->times.end_to_end_ms += tracking_ms;
  } else {
    result->detections = std::move(detections);
  }
  for (const Publisher* p : publishers_) {
    if (p->wants_frame(*result)) {
      result->frame = std::make_shared<const cv::Mat>(frame.bgr.clone());
      break;
    }
  }
  std::shared_ptr<const FrameResult> shared = std::move(result);
  // Counted before it is published, so whoever sees the result sees it counted.
  last_index_ = frame.index;
  last_result_ns_.store(done.time_since_epoch().count());
  frames_.fetch_add(1);
  {
    std::lock_guard lock(status_mutex_);
    recent_.push_back(done);
    while (recent_.size() > kFpsMinResults && done - recent_.front() > kFpsWindow) {
      recent_.pop_front();
    }
    last_times_ = shared->times;
    recent_times_.push_back(shared->times);
    if (recent_times_.size() > kRecentResults) recent_times_.pop_front();
  }
  for (Publisher* p : publishers_) p->publish(shared);
  if (swap_) report_swap(shared->index, done, t.preprocess_ms + t.inference_ms + t.postprocess_ms);
  if (trial_) {
    // The trial chose the thread counts: its frames say nothing about the controller's.
    if (trial_->trial.done()) end_trial(true, "");
  } else if (runs > 0) {
    // Per model run: a crop costs what a whole frame does (both are the model's input size).
    if (auto d = controller_->observe(t.inference_ms / runs)) record(*d);
  }
}

void Inference::report_swap(std::int64_t first_index, Clock::time_point first_done,
                            double first_frame_ms) {
  const PendingSwap s = std::move(*swap_);
  swap_.reset();
  const double gap_ms =
      s.last_done == Clock::time_point{} ? 0 : ms_between(s.last_done, first_done);
  const std::int64_t lost = results_lost(gap_ms, s.interval_ms, first_frame_ms);
  std::string message =
      "switched from " + (s.from ? describe(*s.from) : std::string("nothing")) + " to " +
      describe(*s.to) + " (built in " + std::to_string(static_cast<int>(std::lround(s.build_ms))) +
      " ms); " +
      (lost == 0 ? std::string("no frame lost") : std::to_string(lost) + " frame(s) lost");
  namespace key = fieldlog::key;
  nlohmann::json fields = {{key::kTo, s.to->name},
                           {key::kToPrecision, runtime::precision_name(s.to->precision)},
                           {"to_path", s.to->path.string()},
                           {"build_ms", text::rounded(s.build_ms, 1)},
                           {"last_frame_before", s.last_index},
                           {"first_frame_after", first_index},
                           {key::kFramesLost, lost},
                           {key::kGapMs, text::rounded(gap_ms, 1)}};
  if (s.from) {
    fields[key::kFrom] = s.from->name;
    fields[key::kFromPrecision] = runtime::precision_name(s.from->precision);
  }
  events_.emit(config::LogLevel::kInfo, fieldlog::EventKind::kSwap, message, std::move(fields));
}

}  // namespace yolo::daemon
