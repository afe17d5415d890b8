// SPDX-License-Identifier: Apache-2.0
#include "daemon/pipeline/camera_schedule.h"

#include <algorithm>
#include <stdexcept>

namespace yolo::daemon {

namespace {

CameraSchedule::Clock::duration period_of(double detect_fps) {
  if (detect_fps <= 0) return {};
  return std::chrono::duration_cast<CameraSchedule::Clock::duration>(
      std::chrono::duration<double>(1.0 / detect_fps));
}

}  // namespace

CameraSchedule::Entry* CameraSchedule::find(int id) {
  const auto it =
      std::find_if(entries_.begin(), entries_.end(), [id](const Entry& e) { return e.id == id; });
  return it == entries_.end() ? nullptr : &*it;
}

void CameraSchedule::add(int id, double detect_fps, Clock::time_point now) {
  if (find(id)) throw std::logic_error("camera scheduled twice");
  Entry e;
  e.id = id;
  e.period = period_of(detect_fps);
  e.due = now;
  entries_.push_back(e);
}

void CameraSchedule::remove(int id) {
  std::erase_if(entries_, [id](const Entry& e) { return e.id == id; });
}

void CameraSchedule::set_detect_fps(int id, double detect_fps, Clock::time_point now) {
  Entry* e = find(id);
  if (!e) return;
  const Clock::duration period = period_of(detect_fps);
  if (period == e->period) return;
  e->period = period;
  e->due = std::min(e->due, now + period);
}

void CameraSchedule::arrived(int id, Clock::time_point now) {
  Entry* e = find(id);
  if (!e) return;
  if (e->waiting) {
    ++e->replaced;
  } else {
    e->waiting = true;
    e->waiting_since = now;
  }
}

std::optional<int> CameraSchedule::next(Clock::time_point now,
                                        std::optional<Clock::time_point>* wake_at) const {
  const Entry* best = nullptr;
  std::optional<Clock::time_point> soonest;
  for (const Entry& e : entries_) {
    if (!e.waiting) continue;
    if (e.due > now) {
      if (!soonest || e.due < *soonest) soonest = e.due;
      continue;
    }
    if (!best || e.due < best->due) best = &e;
  }
  if (wake_at) *wake_at = best ? std::nullopt : soonest;
  if (!best) return std::nullopt;
  return best->id;
}

std::int64_t CameraSchedule::served(int id, Clock::time_point now) {
  Entry* e = find(id);
  if (!e) return 0;
  std::int64_t skipped = 0;
  if (e->period == Clock::duration{}) {
    skipped = e->replaced;
    e->due = now;
  } else {
    // Turns that came while a frame of this camera was there to detect and passed unserved; the
    // next turn is the first after now on the camera's own beat.
    const Clock::time_point from = std::max(e->due, e->waiting_since);
    skipped = now > from ? (now - from) / e->period : 0;
    e->due += ((now - e->due) / e->period + 1) * e->period;
  }
  e->waiting = false;
  e->replaced = 0;
  return skipped;
}

}  // namespace yolo::daemon
