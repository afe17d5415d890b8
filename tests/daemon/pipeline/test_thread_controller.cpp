// SPDX-License-Identifier: Apache-2.0
#include "daemon/pipeline/thread_controller.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <numbers>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace yolo::daemon {
namespace {

using config::ThreadMode;

// Latency in ms of one frame at `threads`, the `frame`th of the run.
using Curve = std::function<double(int threads, long frame)>;

// A latency per count, the same for every frame.
Curve steady(std::map<int, double> ms) {
  return [ms](int threads, long) { return ms.at(threads); };
}

// Multiplicative noise, lognormal (sigma), with an occasional outlier (a 5x frame). Box-Muller on
// mt19937 so the runs are the same with any standard library.
class Noise {
 public:
  Noise(std::uint32_t seed, double sigma, double outlier_rate)
      : rng_(seed), sigma_(sigma), outlier_rate_(outlier_rate) {}

  double operator()(double ms) {
    const double gauss =
        std::sqrt(-2 * std::log(uniform())) * std::cos(2 * std::numbers::pi * uniform());
    const double factor = uniform() < outlier_rate_ ? 5 : 1;
    return ms * factor * std::exp(sigma_ * gauss);
  }

 private:
  double uniform() { return (rng_() + 0.5) / 4294967296.0; }

  std::mt19937 rng_;
  double sigma_;
  double outlier_rate_;
};

Curve noisy(Curve curve, std::uint32_t seed, double sigma = 0.08, double outlier_rate = 0.02) {
  auto noise = std::make_shared<Noise>(seed, sigma, outlier_rate);
  return [curve, noise](int threads, long frame) { return (*noise)(curve(threads, frame)); };
}

bool starts_exploring(const ThreadDecision& d) {
  static const std::set<std::string> kinds = {"restart", "throttled", "drift", "recheck"};
  return kinds.contains(d.kind);
}

// Feeds a controller one latency per frame, as the inference loop does, and keeps what it decided.
// Checks on every frame that the count changes only with a decision saying so.
class Replay {
 public:
  explicit Replay(ThreadPolicy policy) : controller(policy) {}

  // Runs `frames` frames of `curve`.
  void run(long frames, const Curve& curve) {
    for (long i = 0; i < frames; ++i) {
      const int before = controller.threads();
      ++frames_at[before];
      const std::optional<ThreadDecision> d = controller.observe(curve(before, frame));
      if (d) {
        EXPECT_EQ(d->from, before) << d->reason;
        EXPECT_EQ(d->to, controller.threads()) << d->reason;
        record(*d);
      } else {
        ASSERT_EQ(controller.threads(), before) << "count changed without a decision at " << frame;
      }
      ++frame;
    }
  }

  // Runs frames until the controller settles; fails past `limit` frames.
  long run_until_settled(const Curve& curve, long limit = 100) {
    const long start = frame;
    while (!controller.settled()) {
      if (frame - start >= limit) {
        ADD_FAILURE() << "not settled after " << limit << " frames";
        break;
      }
      run(1, curve);
    }
    return frame - start;
  }

  // Records a decision the controller returned outside observe().
  void record(const std::optional<ThreadDecision>& d) {
    if (!d) return;
    decisions.push_back(*d);
    decision_frames.push_back(frame);
  }

  std::vector<long> exploration_frames() const {
    std::vector<long> frames;
    for (std::size_t i = 0; i < decisions.size(); ++i) {
      if (starts_exploring(decisions[i])) frames.push_back(decision_frames[i]);
    }
    return frames;
  }

  std::vector<std::string> kinds() const {
    std::vector<std::string> k;
    for (const ThreadDecision& d : decisions) k.push_back(d.kind);
    return k;
  }

  ThreadController controller;
  long frame = 0;
  std::map<int, long> frames_at;
  std::vector<ThreadDecision> decisions;
  std::vector<long> decision_frames;
};

ThreadPolicy adaptive(int max) {
  return {.mode = ThreadMode::kAdaptive, .fixed = 1, .max = max};
}

ThreadPolicy efficiency(int max, double margin) {
  return {.mode = ThreadMode::kEfficiency, .fixed = 1, .max = max, .margin = margin};
}

// The seeds' case: on this model FP32 runs best on 1 thread, INT8 on every core.
const std::map<int, double> kFp32 = {{1, 20}, {2, 22}, {3, 23.5}, {4, 25}};
const std::map<int, double> kInt8 = {{1, 12}, {2, 7}, {3, 5.5}, {4, 4.5}};

TEST(ThreadController, SeedsCaseFp32SettlesOnOneThreadAndInt8OnEveryCore) {
  Replay r(adaptive(4));
  EXPECT_EQ(r.controller.last_decision().kind, "explore");
  EXPECT_EQ(r.controller.threads(), 1);

  // Every count is measured with one warm-up frame and 5 samples: 24 frames.
  EXPECT_EQ(r.run_until_settled(steady(kFp32)), 24);
  EXPECT_EQ(r.controller.threads(), 1);
  EXPECT_EQ(r.kinds(), (std::vector<std::string>{"explore", "explore", "explore", "settle"}));
  const ThreadDecision& fp32 = r.decisions.back();
  EXPECT_EQ(fp32.latency_ms, kFp32);
  EXPECT_EQ(fp32.reason, "settled on 1 thread: 20.0 ms median vs 22.0 ms at 2 (adaptive)");

  r.record(r.controller.restart("precision changed from fp32 to int8"));
  EXPECT_EQ(r.decisions.back().kind, "restart");
  EXPECT_NE(r.decisions.back().reason.find("fp32 to int8"), std::string::npos);
  EXPECT_FALSE(r.controller.settled());
  EXPECT_EQ(r.run_until_settled(steady(kInt8)), 24);
  EXPECT_EQ(r.controller.threads(), 4);
  EXPECT_EQ(r.decisions.back().latency_ms, kInt8);
  EXPECT_EQ(r.decisions.back().reason,
            "settled on 4 threads: 4.5 ms median vs 5.5 ms at 3 (adaptive)");

  r.record(r.controller.restart("precision changed from int8 to fp32"));
  r.run_until_settled(steady(kFp32));
  EXPECT_EQ(r.controller.threads(), 1);
}

TEST(ThreadController, WhileExploringDecidesOncePerCountChange) {
  Replay r(adaptive(4));
  r.run_until_settled(steady(kInt8));
  ASSERT_EQ(r.decisions.size(), 4u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(r.decisions[i].from, i + 1);
    EXPECT_EQ(r.decisions[i].to, i + 2);
    // The medians so far: one more count per step.
    EXPECT_EQ(r.decisions[i].latency_ms.size(), static_cast<std::size_t>(i + 1));
  }
  EXPECT_EQ(r.decisions[0].reason, "trying 2 threads: 1 thread took 12.0 ms (median of 5)");
  for (int n = 1; n <= 4; ++n) EXPECT_EQ(r.frames_at[n], 6) << n;
}

TEST(ThreadController, DropsTheFirstFrameAfterACountChange) {
  // The first frame at a new count pays for setting up pools and operators again.
  std::map<int, long> frames_seen;
  const Curve warming = [&](int threads, long) {
    return kInt8.at(threads) * (frames_seen[threads]++ == 0 ? 2.5 : 1);
  };
  Replay r(adaptive(4));
  r.run_until_settled(warming);
  EXPECT_EQ(r.decisions.back().latency_ms, kInt8);
}

TEST(ThreadController, EfficiencyPicksTheFewestThreadsWithinTheMarginAdaptiveTheFastest) {
  const std::map<int, double> flat = {{1, 12}, {2, 7}, {3, 6.6}, {4, 6.4}};

  Replay fastest(adaptive(4));
  fastest.run_until_settled(steady(flat));
  EXPECT_EQ(fastest.controller.threads(), 4);

  Replay frugal(efficiency(4, 0.1));
  frugal.run_until_settled(steady(flat));
  EXPECT_EQ(frugal.controller.threads(), 2);
  EXPECT_EQ(frugal.decisions.back().reason,
            "settled on 2 threads: 7.0 ms median, within 9% of the fastest, 6.4 ms at 4 "
            "(efficiency, margin 10%)");

  // A tighter margin keeps more threads.
  Replay tight(efficiency(4, 0.05));
  tight.run_until_settled(steady(flat));
  EXPECT_EQ(tight.controller.threads(), 3);

  // When the fewest threads are also the fastest, both agree.
  Replay one(efficiency(2, 0.1));
  one.run_until_settled(steady({{1, 12.1}, {2, 13.0}}));
  EXPECT_EQ(one.controller.threads(), 1);
  EXPECT_EQ(one.decisions.back().reason,
            "settled on 1 thread: 12.1 ms median vs 13.0 ms at 2 (efficiency, margin 10%)");
}

TEST(ThreadController, LargeMaxTriesFewCountsAndStaysWithinTensOfFrames) {
  // Work split over threads, plus a cost per thread: best near 14 threads.
  const Curve curve = [](int threads, long) { return 100.0 / threads + 0.5 * threads; };
  Replay r(adaptive(64));
  EXPECT_EQ(r.run_until_settled(curve), 6 * 8);
  std::set<int> tried;
  for (const auto& [n, frames] : r.frames_at) tried.insert(n);
  EXPECT_EQ(tried, (std::set<int>{1, 2, 3, 4, 8, 16, 32, 64}));
  EXPECT_EQ(r.controller.threads(), 16);

  Replay odd(adaptive(6));
  odd.run_until_settled(curve);
  EXPECT_EQ(odd.decisions.back().latency_ms.size(), 5u);
  EXPECT_TRUE(odd.decisions.back().latency_ms.contains(6));
}

// Measured here: with one of 2 cores kept busy, 2 threads take over 1 s a frame.
const std::map<int, double> kCollapseAt2 = {{1, 20}, {2, 1000}};

TEST(ThreadController, CollapseIsAbandonedWithinTwoFrames) {
  Replay r(adaptive(2));
  r.run_until_settled(noisy(steady(kCollapseAt2), 7));
  EXPECT_EQ(r.controller.threads(), 1);
  EXPECT_EQ(r.frames_at[2], 2);
  const ThreadDecision& d = r.decisions.back();
  EXPECT_EQ(d.kind, "abandon");
  EXPECT_EQ(d.from, 2);
  EXPECT_EQ(d.to, 1);
  EXPECT_GT(d.latency_ms.at(2), 500);
  EXPECT_NE(d.reason.find("abandoned 2 threads after 2 frames"), std::string::npos) << d.reason;
}

TEST(ThreadController, CollapseDoesNotPullItBackToTheCollapsingCountOverALongRun) {
  Replay r(adaptive(2));
  r.run(20000, noisy(steady(kCollapseAt2), 11));
  EXPECT_EQ(r.controller.threads(), 1);
  // Only rechecks, each twice as far apart as the one before: 1 s frames cost little.
  const std::vector<long> starts = r.exploration_frames();
  EXPECT_LE(starts.size(), 4u);
  long gap = 0;
  long last = 0;
  for (const long start : starts) {
    EXPECT_GE(start - last, std::max(900L, 2 * gap - 50)) << "exploration at frame " << start;
    gap = start - last;
    last = start;
  }
  EXPECT_LE(r.frames_at[2], 2 * static_cast<long>(starts.size() + 1));
}

TEST(ThreadController, SettledCountThatCollapsesStepsDownAtOnceAndComesBackWhenTheLoadGoes) {
  const long load_from = 2000;
  const long load_until = 4000;
  const Curve curve = [&](int threads, long frame) {
    const bool loaded = frame >= load_from && frame < load_until;
    if (threads == 1) return 20.0;
    return loaded ? 1000.0 : 12.0;
  };
  Replay r(adaptive(2));
  r.run(load_from, noisy(curve, 3));
  ASSERT_EQ(r.controller.threads(), 2);

  const long at2 = r.frames_at[2];
  const std::size_t decided = r.decisions.size();
  r.run(100, noisy(curve, 4));
  EXPECT_EQ(r.controller.threads(), 1);
  // 4 frames to see the collapse, 2 to abandon 2 threads while exploring again.
  EXPECT_EQ(r.frames_at[2] - at2, 6);
  ASSERT_EQ(r.kinds().size(), decided + 3);
  EXPECT_EQ(r.decisions[decided].kind, "drift");
  EXPECT_NE(r.decisions[decided].reason.find("collapsed"), std::string::npos);
  EXPECT_EQ(r.decisions[decided + 2].kind, "abandon");

  r.run(load_until - r.frame, noisy(curve, 5));
  EXPECT_EQ(r.controller.threads(), 1);
  // Once the load is gone a recheck finds 2 threads again: the rechecks during the load (after
  // 960 frames, then 1920) found 1 thread, so the next one comes 1920 frames after the last.
  r.run(2000, noisy(curve, 6));
  EXPECT_EQ(r.controller.threads(), 2);
}

TEST(ThreadController, NoisyCurvesPickTheRightCount) {
  const std::map<int, double> curve = {{1, 40}, {2, 24}, {3, 18}, {4, 23}};
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    Replay fastest(adaptive(4));
    fastest.run_until_settled(noisy(steady(curve), seed));
    EXPECT_EQ(fastest.controller.threads(), 3) << "seed " << seed;

    Replay frugal(efficiency(4, 0.6));
    frugal.run_until_settled(noisy(steady(curve), seed));
    EXPECT_EQ(frugal.controller.threads(), 2) << "seed " << seed;
  }
}

TEST(ThreadController, NoisySteadyRunDoesNotKeepExploring) {
  const std::map<int, double> curve = {{1, 40}, {2, 24}, {3, 18}, {4, 23}};
  for (std::uint32_t seed = 1; seed <= 5; ++seed) {
    Replay r(adaptive(4));
    r.run(20000, noisy(steady(curve), seed, 0.12, 0.03));
    EXPECT_EQ(r.controller.threads(), 3) << "seed " << seed;
    for (const ThreadDecision& d : r.decisions) EXPECT_NE(d.kind, "drift") << d.reason;
    // Rechecks only, spaced further and further apart.
    EXPECT_LE(r.exploration_frames().size(), 4u) << "seed " << seed;
  }
}

TEST(ThreadController, SustainedDriftExploresAgainASpikeDoesNot) {
  const std::map<int, double> base = {{1, 12}, {2, 7}};
  Replay r(adaptive(2));
  r.run(200, noisy(steady(base), 21));
  ASSERT_EQ(r.controller.threads(), 2);
  const std::size_t decided = r.decisions.size();

  // One frame 10x slower, then a burst of 5 frames 2x slower.
  const Curve spikes = [&](int threads, long frame) {
    const double ms = base.at(threads);
    if (frame == 300) return 10 * ms;
    if (frame >= 400 && frame < 405) return 2 * ms;
    return ms;
  };
  r.run(300, noisy(spikes, 22));
  EXPECT_EQ(r.decisions.size(), decided);

  // 2 threads become 30 % slower and stay so: drift, then explore again and follow it.
  const std::map<int, double> slower = {{1, 12}, {2, 9.1}};
  const long drift_from = r.frame;
  r.run(100, noisy(steady(slower), 23));
  ASSERT_GT(r.decisions.size(), decided);
  const ThreadDecision& drift = r.decisions[decided];
  EXPECT_EQ(drift.kind, "drift");
  EXPECT_LE(r.decision_frames[decided] - drift_from, 30);
  EXPECT_EQ(drift.reason.rfind("latency at 2 threads drifted from ", 0), 0u) << drift.reason;

  // And 2 threads becoming slower than 1 moves the choice.
  r.run(300, noisy(steady({{1, 12}, {2, 14}}), 24));
  EXPECT_EQ(r.controller.threads(), 1);
}

TEST(ThreadController, DriftFromLoadEveryCountSeesBacksOff) {
  // A load that comes and goes every 300 frames makes every count 30 % slower: each exploration
  // ends where the last did, so the hold-off grows.
  const Curve curve = [](int threads, long frame) {
    const double ms = threads == 1 ? 12 : 7;
    return (frame / 300) % 2 ? ms * 1.3 : ms;
  };
  Replay r(adaptive(2));
  r.run(20000, noisy(curve, 31));
  EXPECT_EQ(r.controller.threads(), 2);
  const std::vector<long> starts = r.exploration_frames();
  EXPECT_GE(starts.size(), 3u);
  EXPECT_LE(starts.size(), 12u);
  ASSERT_GE(starts.size(), 2u);
  EXPECT_GE(starts.back() - starts[starts.size() - 2], 3000);
}

TEST(ThreadController, ThrottlingExploresAgainAndTheCurveIsFollowedWhileThrottled) {
  Replay r(adaptive(4));
  r.run(100, steady(kInt8));
  ASSERT_EQ(r.controller.threads(), 4);

  std::optional<ThreadDecision> d = r.controller.throttling_changed(true);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->kind, "throttled");
  EXPECT_EQ(d->from, 4);
  EXPECT_EQ(d->to, 1);
  r.record(d);
  EXPECT_FALSE(r.controller.throttling_changed(true)) << "no change, no decision";

  // Throttled, the clock drops and more threads stop paying.
  r.run_until_settled(steady({{1, 20}, {2, 12}, {3, 13}, {4, 15}}));
  EXPECT_EQ(r.controller.threads(), 2);

  // Hotter still: 2 threads now lose to 1, which the drift check follows.
  const std::map<int, double> hotter = {{1, 21}, {2, 24}, {3, 28}, {4, 30}};
  r.run(200, steady(hotter));
  EXPECT_EQ(r.controller.threads(), 1);
  EXPECT_EQ(r.decisions[r.decisions.size() - 5].kind, "drift");

  // Throttling ends: back to every core.
  r.run(50, steady(hotter));
  r.record(r.controller.throttling_changed(false));
  EXPECT_EQ(r.decisions.back().kind, "throttled");
  r.run_until_settled(steady(kInt8));
  EXPECT_EQ(r.controller.threads(), 4);
}

TEST(ThreadController, ThrottlingWithinTheHoldOffWaitsAndAFlickerIsIgnored) {
  Replay r(adaptive(4));
  r.run_until_settled(steady(kInt8));
  // Just settled: nothing is explored before the baseline is measured.
  EXPECT_FALSE(r.controller.throttling_changed(true));
  EXPECT_FALSE(r.controller.throttling_changed(false));
  r.run(200, steady(kInt8));
  EXPECT_EQ(r.exploration_frames().size(), 0u) << "throttling on and off again changes nothing";

  // Throttling that starts while exploring is explored once the hold-off has passed.
  r.record(r.controller.restart("model changed"));
  r.run(5, steady(kInt8));
  EXPECT_FALSE(r.controller.throttling_changed(true));
  r.run_until_settled(steady(kInt8));
  const long settled_at = r.frame;
  r.run(100, steady(kInt8));
  ASSERT_EQ(r.decisions[r.decisions.size() - 5].kind, "throttled");
  // On the 30th frame settled.
  EXPECT_EQ(r.decision_frames[r.decisions.size() - 5] - settled_at, 29);
}

TEST(ThreadController, FixedModeNeverExploresAndPolicyChangesApply) {
  Replay r({.mode = ThreadMode::kFixed, .fixed = 3, .max = 4});
  EXPECT_EQ(r.controller.threads(), 3);
  EXPECT_TRUE(r.controller.settled());
  EXPECT_EQ(r.controller.last_decision().kind, "fixed");
  Noise noise(41, 0.5, 0.1);
  r.run(5000, [&](int, long frame) { return noise(frame < 2500 ? 10 : 1000); });
  EXPECT_FALSE(r.controller.restart("model changed"));
  EXPECT_FALSE(r.controller.throttling_changed(true));
  EXPECT_TRUE(r.decisions.empty());
  EXPECT_EQ(r.controller.threads(), 3);

  EXPECT_FALSE(r.controller.set_policy({.mode = ThreadMode::kFixed, .fixed = 3, .max = 8}));
  r.record(r.controller.set_policy({.mode = ThreadMode::kFixed, .fixed = 2, .max = 4}));
  ASSERT_EQ(r.decisions.size(), 1u);
  EXPECT_EQ(r.decisions[0].kind, "fixed");
  EXPECT_EQ(r.decisions[0].from, 3);
  EXPECT_EQ(r.controller.threads(), 2);

  r.record(r.controller.set_policy(adaptive(4)));
  ASSERT_EQ(r.decisions.size(), 2u);
  EXPECT_EQ(r.decisions[1].kind, "restart");
  EXPECT_NE(r.decisions[1].reason.find("from fixed, 2 threads to adaptive, max 4"),
            std::string::npos)
      << r.decisions[1].reason;
  EXPECT_FALSE(r.controller.settled());
  r.run_until_settled(steady(kInt8));
  EXPECT_EQ(r.controller.threads(), 4);
  EXPECT_FALSE(r.controller.set_policy(adaptive(4)));

  r.record(r.controller.set_policy(efficiency(4, 0.3)));
  r.run_until_settled(steady(kInt8));
  EXPECT_EQ(r.controller.threads(), 3);
}

TEST(ThreadController, MaxOfOneSettlesAtOnce) {
  Replay r(adaptive(1));
  EXPECT_TRUE(r.controller.settled());
  EXPECT_EQ(r.controller.threads(), 1);
  EXPECT_EQ(r.controller.last_decision().kind, "settle");
  r.run(1000, steady({{1, 20}}));
  EXPECT_FALSE(r.controller.restart("precision changed"));
  EXPECT_TRUE(r.decisions.empty());
}

TEST(ThreadController, RejectsPoliciesAndLatenciesThatCannotBe) {
  EXPECT_THROW(ThreadController({.mode = ThreadMode::kAdaptive, .fixed = 1, .max = 0}),
               std::invalid_argument);
  EXPECT_THROW(ThreadController({.mode = ThreadMode::kFixed, .fixed = 0, .max = 4}),
               std::invalid_argument);
  EXPECT_THROW(ThreadController(efficiency(4, -0.1)), std::invalid_argument);
  try {
    ThreadController({.mode = ThreadMode::kAdaptive, .fixed = 1, .max = 0});
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("max is 0"), std::string::npos) << e.what();
  }
  ThreadController c(adaptive(4));
  EXPECT_THROW(c.observe(std::numeric_limits<double>::quiet_NaN()), std::invalid_argument);
  EXPECT_THROW(c.observe(-1), std::invalid_argument);
  EXPECT_THROW(c.set_policy(adaptive(0)), std::invalid_argument);
  EXPECT_EQ(c.policy(), adaptive(4));
}

}  // namespace
}  // namespace yolo::daemon
