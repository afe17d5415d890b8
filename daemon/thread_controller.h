#pragma once

#include <map>
#include <optional>
#include <string>

#include "config/config.h"

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

// One change of course: a count tried, a count settled on, or exploring again, with the
// measurements behind it. Logged as an event and shown in the status.
struct ThreadDecision {
  int from = 0;
  int to = 0;
  // What happened: "explore", "settle", "abandon" (a count far slower than the best), "drift",
  // "throttled", "restart" (model, precision or policy changed), "fixed".
  std::string kind;
  // A sentence for people, e.g. "settled on 1 thread: 12.1 ms median vs 13.0 ms at 2".
  std::string reason;
  // Median inference latency measured at each count tried so far in this exploration.
  std::map<int, double> latency_ms;
};

// Chooses the inference thread count by measuring latency (DESIGN.md, adaptive threads). Driven
// only by the latencies it is given, one per frame, so tests can replay simulated curves.
// Not thread-safe: the inference thread owns it.
class ThreadController {
 public:
  explicit ThreadController(ThreadPolicy policy);

  // The count to run the next frame with.
  int threads() const;
  // True once an exploration has ended (always in fixed mode).
  bool settled() const;
  const ThreadPolicy& policy() const;

  // One inference latency, measured at threads(). Returns a decision when the count changes, the
  // controller settles, or it starts exploring again because settled latency drifted.
  std::optional<ThreadDecision> observe(double inference_ms);

  // Explore again from the start: the model, precision or input size changed (`reason` says
  // which). Returns the decision that starts it (none in fixed mode).
  std::optional<ThreadDecision> restart(const std::string& reason);
  // The device reports throttling (it started, or it ended): the latencies measured no longer
  // hold.
  std::optional<ThreadDecision> throttling_changed(bool throttled);
  // A reload changed the threads section.
  std::optional<ThreadDecision> set_policy(const ThreadPolicy& policy);

 private:
  struct State;
  ThreadPolicy policy_;
  // Implementation state; see thread_controller.cpp.
};

}  // namespace yolo::daemon
