// SPDX-License-Identifier: Apache-2.0
#include "daemon/core/label_tracker.h"

#include <algorithm>

namespace yolo::daemon {

namespace {

// The labels whose count differs between `before` and `after`, in label order.
std::vector<LabelChange> differences(const std::map<std::string, int>& before,
                                     const std::map<std::string, int>& after) {
  std::vector<LabelChange> changes;
  auto b = before.begin();
  auto a = after.begin();
  while (b != before.end() || a != after.end()) {
    if (a == after.end() || (b != before.end() && b->first < a->first)) {
      changes.push_back({b->first, b->second, 0});
      ++b;
    } else if (b == before.end() || a->first < b->first) {
      changes.push_back({a->first, 0, a->second});
      ++a;
    } else {
      if (a->second != b->second) changes.push_back({a->first, b->second, a->second});
      ++a;
      ++b;
    }
  }
  return changes;
}

}  // namespace

std::string label_of(const FrameResult& frame, int class_id) {
  return frame.model ? frame.model->names.name(class_id) : vision::ClassNames().name(class_id);
}

std::map<std::string, int> label_counts(const FrameResult& frame) {
  std::map<std::string, int> counts;
  for (const auto& d : frame.detections) ++counts[label_of(frame, d.class_id)];
  return counts;
}

std::vector<LabelChange> LabelTracker::add(const std::map<std::string, int>& counts,
                                           Clock::time_point time) {
  const std::map<std::string, int> before = this->counts();
  last_frame_ = time;
  prune(time);
  for (const auto& [label, count] : counts) {
    if (count <= 0) continue;
    Window& window = windows_[label];
    // An older sighting with no more than this count can never be the maximum again.
    while (!window.empty() && window.back().second <= count) window.pop_back();
    window.emplace_back(time, count);
  }
  return differences(before, this->counts());
}

std::vector<LabelChange> LabelTracker::expire(Clock::time_point time) {
  const std::map<std::string, int> before = counts();
  prune(time);
  return differences(before, counts());
}

std::optional<LabelTracker::Clock::time_point> LabelTracker::next_expiry() const {
  std::optional<Clock::time_point> next;
  for (const auto& [label, window] : windows_) {
    const Clock::time_point due = window.front().first + hold_;
    next = next ? std::min(*next, due) : due;
  }
  return next;
}

std::vector<LabelChange> LabelTracker::expire_if_stalled(Clock::time_point time) {
  if (!next_expiry() || time < last_frame_ + kStalledAfter) return {};
  return expire(time);
}

std::optional<LabelTracker::Clock::time_point> LabelTracker::next_stalled_expiry() const {
  const auto expiry = next_expiry();
  if (!expiry) return std::nullopt;
  return std::max(*expiry, last_frame_ + kStalledAfter);
}

std::map<std::string, int> LabelTracker::counts() const {
  std::map<std::string, int> counts;
  for (const auto& [label, window] : windows_) counts[label] = window.front().second;
  return counts;
}

void LabelTracker::prune(Clock::time_point time) {
  for (auto it = windows_.begin(); it != windows_.end();) {
    Window& window = it->second;
    while (!window.empty() && window.front().first + hold_ <= time) window.pop_front();
    it = window.empty() ? windows_.erase(it) : std::next(it);
  }
}

void CameraLabels::set_hold(Clock::duration hold) {
  hold_ = hold;
  for (auto& [camera, tracker] : cameras_) tracker.set_hold(hold);
}

template <class Step>
std::vector<LabelChange> CameraLabels::changed_by(Step step) {
  const std::map<std::string, int> before = counts();
  step();
  return differences(before, counts());
}

std::vector<LabelChange> CameraLabels::add(const std::string& camera,
                                           const std::map<std::string, int>& counts,
                                           Clock::time_point time) {
  return changed_by([&] { cameras_.try_emplace(camera, hold_).first->second.add(counts, time); });
}

std::vector<LabelChange> CameraLabels::expire(Clock::time_point time) {
  return changed_by([&] {
    for (auto& [camera, tracker] : cameras_) tracker.expire(time);
  });
}

std::vector<LabelChange> CameraLabels::expire_if_stalled(Clock::time_point time) {
  return changed_by([&] {
    for (auto& [camera, tracker] : cameras_) tracker.expire_if_stalled(time);
  });
}

std::optional<CameraLabels::Clock::time_point> CameraLabels::next_expiry() const {
  std::optional<Clock::time_point> next;
  for (const auto& [camera, tracker] : cameras_) {
    if (const auto t = tracker.next_expiry(); t && (!next || *t < *next)) next = t;
  }
  return next;
}

std::optional<CameraLabels::Clock::time_point> CameraLabels::next_stalled_expiry() const {
  std::optional<Clock::time_point> next;
  for (const auto& [camera, tracker] : cameras_) {
    if (const auto t = tracker.next_stalled_expiry(); t && (!next || *t < *next)) next = t;
  }
  return next;
}

std::map<std::string, int> CameraLabels::counts() const {
  std::map<std::string, int> sum;
  for (const auto& [camera, tracker] : cameras_) {
    for (const auto& [label, n] : tracker.counts()) sum[label] += n;
  }
  return sum;
}

}  // namespace yolo::daemon
