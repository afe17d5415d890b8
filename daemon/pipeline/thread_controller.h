// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "daemon/core/daemon_status.h"

namespace yolo::daemon {

// What the controller is asked to do: config's threads section, with 0 ("one per core") already
// replaced by the core count.
struct ThreadPolicy {
  config::ThreadMode mode = config::ThreadMode::kAdaptive;
  // Threads in fixed mode.
  int fixed = 1;
  // Most threads adaptive and efficiency try.
  int max = 1;
  // Efficiency: the latency a count may lose to the fastest, as a fraction.
  double margin = 0.1;

  bool operator==(const ThreadPolicy&) const = default;
};

// Chooses the inference thread count by measuring latency (DESIGN.md, adaptive threads). Driven
// only by the latencies it is given, one per frame, so tests can replay simulated curves.
// Not thread-safe: the inference thread owns it.
//
// Exploring tries detector::thread_counts_to_try(max): 1, 2, 3, 4, then doubling, and max. At each
// it drops one warm-up frame (pools and operators set up again) and takes the median of the next 5,
// so an exploration costs at most 6 frames per count: 24 on a 4-core Pi, 60 at most (max 256, 10
// counts). A count with 2 frames in a row over 3x the best median so far is abandoned at once,
// and no higher count is tried (more threads than free cores collapse the same way). Adaptive
// settles on the fastest median, efficiency on the fewest threads within `margin` of it.
//
// Settled, the first 30 frames set a baseline (a drift already if over 20 % away from the median
// explored). Exploring starts again when the median of the last 15 frames stays over 20 % away
// from it for 15 frames in a row (a drift, so one noisy frame or a short burst does not count),
// when throttling changes, or after 32 hold-offs settled (a recheck, in case a load that shaped
// the last answer has gone). All of these wait for the hold-off: 30 settled frames, doubled (up to
// 3000) each time an exploration reaches the same count as the previous one, back to 30 when it
// does not. Only a collapse, 4 frames in a row over 3x the baseline, starts exploring at once.
// restart() and set_policy() always explore at once.
class ThreadController {
 public:
  // Throws std::invalid_argument when policy.fixed or policy.max is below 1 or margin is negative
  // or not finite.
  explicit ThreadController(ThreadPolicy policy);

  // The count to run the next frame with.
  int threads() const;
  // True once an exploration has ended (always in fixed mode).
  bool settled() const;
  const ThreadPolicy& policy() const;
  // The latest decision, including the one the constructor starts with (exploring, fixed, or
  // settled at once when max is 1), for the status.
  const ThreadDecision& last_decision() const;

  // One inference latency, measured at threads(). Returns a decision when the count changes, the
  // controller settles, or it starts exploring again (drift, recheck, throttling held off).
  // Throws std::invalid_argument when inference_ms is negative or not finite.
  std::optional<ThreadDecision> observe(double inference_ms);

  // Explore again from the start: the model, precision or input size changed (`reason` says
  // which). Returns the decision that starts it (none in fixed mode or when max is 1).
  std::optional<ThreadDecision> restart(const std::string& reason);
  // The device reports throttling (it started, or it ended): the latencies measured no longer
  // hold. Returns the decision when exploring starts now; within the hold-off, or while
  // exploring, observe() starts it later if the state still differs from the one measured.
  std::optional<ThreadDecision> throttling_changed(bool throttled);
  // A reload changed the threads section: explores again (or moves to the fixed count). Throws
  // like the constructor.
  std::optional<ThreadDecision> set_policy(const ThreadPolicy& policy);

 private:
  // The exploration under way.
  struct Exploration {
    // Index in candidates_ of the count being measured.
    std::size_t index = 0;
    // Every frame at the current count, the warm-up frame first.
    std::vector<double> frames;
    // Consecutive frames at the current count over 3x the best median so far.
    int far_slower_run = 0;
    // Medians of the counts measured in full.
    std::map<int, double> medians;
    // The count abandoned, with the median of its frames.
    std::optional<std::pair<int, double>> abandoned;
  };
  // Watching the settled count.
  struct Watch {
    // Frames since settling.
    long frames = 0;
    // Warm-up frames still to drop (the count changed when settling).
    int warmup = 0;
    // Median latency at settling (from the exploration), then over the first settled frames.
    double baseline_ms = 0;
    std::vector<double> baseline_frames;
    // The last frames, for the drift median.
    std::deque<double> recent;
    // Consecutive frames whose drift median was over 20 % away from the baseline.
    int drift_run = 0;
    // Consecutive frames over 3x the baseline.
    int far_slower_run = 0;
  };

  // False in fixed mode and when max is 1: nothing to choose.
  bool explores() const;
  // Forgets what was learnt and does what the policy asks: the fixed count, 1 when max is 1, or
  // exploring (a decision of `kind` saying `why`).
  ThreadDecision start(const std::string& kind, const std::string& why);
  ThreadDecision begin(const std::string& kind, const std::string& why);
  std::optional<ThreadDecision> explore(double inference_ms);
  std::optional<ThreadDecision> watch(double inference_ms);
  // Exploring again for drift, throttling or a recheck, once the hold-off allows.
  std::optional<ThreadDecision> explore_again_if_due();
  ThreadDecision settle();
  ThreadDecision decide(std::string kind, int to, std::string reason,
                        std::map<int, double> latency_ms = {});

  ThreadPolicy policy_;
  // The counts an exploration tries, in order.
  std::vector<int> candidates_;
  int threads_ = 1;
  // Set while exploring; settled otherwise.
  std::optional<Exploration> exploration_;
  Watch watch_;
  // Settled frames an exploration waits for, unless a collapse or a restart starts it.
  long holdoff_ = 0;
  // The count the last exploration settled on, to see when explorations keep agreeing.
  std::optional<int> last_answer_;
  // Whether the device reports throttling now, and did when the last exploration started.
  bool throttled_ = false;
  bool measured_throttled_ = false;
  ThreadDecision last_decision_;
};

}  // namespace yolo::daemon
