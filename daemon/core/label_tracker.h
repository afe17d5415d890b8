// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "daemon/core/frame_result.h"

namespace yolo::daemon {

// A detection's label by the frame's model's names ("class 7" past them).
std::string label_of(const FrameResult& frame, int class_id);
// How many detections of each label a frame has, by the model's names.
std::map<std::string, int> label_counts(const FrameResult& frame);

// One label whose reported count changed (0 means absent).
struct LabelChange {
  std::string label;
  int from = 0;
  int to = 0;

  bool operator==(const LabelChange&) const = default;
};

// What is seen, debounced, as the outputs that report changes (MQTT events and occupancy, the
// webhook) report it. A label's reported count is the largest count any frame had for it within
// the last `hold`: it rises at once (a new object is news) and falls, or the label disappears,
// only after `hold` without a frame that had the higher count. A count that flickers for one
// frame therefore gives no event when it dips, and at most one rise and one fall per `hold` when
// it jumps, however fast the frames come. With a zero hold every change of a frame's counts is
// reported.
class LabelTracker {
 public:
  using Clock = std::chrono::steady_clock;

  explicit LabelTracker(Clock::duration hold) : hold_(hold) {}

  // Applies from the next add() or expire().
  void set_hold(Clock::duration hold) { hold_ = hold; }
  Clock::duration hold() const { return hold_; }

  // One frame's count per label (labels it did not see are absent) at `time`, which never goes
  // back; returns the labels whose reported count changed, in label order.
  std::vector<LabelChange> add(const std::map<std::string, int>& counts, Clock::time_point time);
  // Forgets sightings older than `hold` at `time` without a frame; returns the changes.
  std::vector<LabelChange> expire(Clock::time_point time);
  // When expire() would next change something; nothing while no label is seen.
  std::optional<Clock::time_point> next_expiry() const;

  // Frames that stop for this long after the last add() mean the source stalled: labels then
  // expire on the clock instead of on the next frame.
  static constexpr Clock::duration kStalledAfter = std::chrono::seconds(2);
  // expire(), once the source stalled; while frames come, add() expires.
  std::vector<LabelChange> expire_if_stalled(Clock::time_point time);
  // When expire_if_stalled() would next change something.
  std::optional<Clock::time_point> next_stalled_expiry() const;

  // The reported count of each label seen now (all above 0).
  std::map<std::string, int> counts() const;
  bool present(const std::string& label) const { return windows_.contains(label); }

 private:
  // A label's sightings within the hold, oldest first, with counts strictly decreasing: the
  // front is the largest count of the window (a sliding-window maximum).
  using Window = std::deque<std::pair<Clock::time_point, int>>;

  // Drops the sightings that fell out of the hold at `time`.
  void prune(Clock::time_point time);

  Clock::duration hold_;
  std::map<std::string, Window> windows_;
  Clock::time_point last_frame_{};
};

// What is seen across several cameras: each camera's labels are debounced by a LabelTracker of
// its own (another camera's frames never end its sightings, nor its stall its own), and a
// label's reported count is the sum of the cameras' (two people at the door and one in the yard
// are three). The same calls as LabelTracker, with the frame's camera.
class CameraLabels {
 public:
  using Clock = LabelTracker::Clock;

  explicit CameraLabels(Clock::duration hold) : hold_(hold) {}
  void set_hold(Clock::duration hold);
  Clock::duration hold() const { return hold_; }
  std::vector<LabelChange> add(const std::string& camera, const std::map<std::string, int>& counts,
                               Clock::time_point time);
  std::vector<LabelChange> expire(Clock::time_point time);
  std::optional<Clock::time_point> next_expiry() const;
  std::vector<LabelChange> expire_if_stalled(Clock::time_point time);
  std::optional<Clock::time_point> next_stalled_expiry() const;
  std::map<std::string, int> counts() const;
  bool present(const std::string& label) const { return counts().contains(label); }

 private:
  // Runs `step` on the cameras' trackers; the labels whose summed count it changed.
  template <class Step>
  std::vector<LabelChange> changed_by(Step step);

  Clock::duration hold_;
  std::map<std::string, LabelTracker, std::less<>> cameras_;
};

}  // namespace yolo::daemon
