// SPDX-License-Identifier: Apache-2.0
#include "daemon/pipeline/frame_hub.h"

#include <algorithm>

namespace yolo::daemon {

namespace {

// The span rates are taken over.
constexpr auto kRateWindow = std::chrono::seconds(5);

}  // namespace

void CameraStage::configure(TrackingSettings settings) {
  std::lock_guard lock(mutex_);
  pending_ = std::move(settings);
}

std::optional<TrackingSettings> CameraStage::take_settings() {
  std::lock_guard lock(mutex_);
  return std::exchange(pending_, std::nullopt);
}

void RateWindow::add(std::chrono::steady_clock::time_point now, std::int64_t n) {
  if (first_ == std::chrono::steady_clock::time_point{}) first_ = now;
  if (n > 0) events_.emplace_back(now, n);
  while (!events_.empty() && now - events_.front().first > kRateWindow) events_.pop_front();
}

double RateWindow::rate(std::chrono::steady_clock::time_point now) const {
  if (first_ == std::chrono::steady_clock::time_point{}) return 0;
  // Over the window, or since the first event when that is shorter (a camera just added).
  const double span = std::chrono::duration<double>(
                          std::min<std::chrono::steady_clock::duration>(kRateWindow, now - first_))
                          .count();
  if (span <= 0) return 0;
  std::int64_t n = 0;
  for (const auto& [t, count] : events_) n += now - t <= kRateWindow ? count : 0;
  return static_cast<double>(n) / span;
}

int FrameHub::add(std::shared_ptr<CameraStage> camera, double detect_fps) {
  std::lock_guard lock(mutex_);
  const int id = next_id_++;
  slots_[id].camera = std::move(camera);
  schedule_.add(id, detect_fps, Clock::now());
  return id;
}

void FrameHub::remove(int id) {
  {
    std::lock_guard lock(mutex_);
    slots_.erase(id);
    schedule_.remove(id);
  }
  changed_.notify_all();
}

void FrameHub::set_detect_fps(int id, double detect_fps) {
  std::lock_guard lock(mutex_);
  schedule_.set_detect_fps(id, detect_fps, Clock::now());
}

bool FrameHub::put(int id, vision::Frame& frame, bool wait_for_room) {
  {
    std::unique_lock lock(mutex_);
    const auto slot = [&]() -> Slot* {
      const auto it = slots_.find(id);
      return closed_ || it == slots_.end() ? nullptr : &it->second;
    };
    if (wait_for_room) changed_.wait(lock, [&] { return !slot() || !slot()->full; });
    Slot* s = slot();
    if (!s) return false;
    const auto now = Clock::now();
    if (s->full) ++s->totals.replaced;
    std::swap(frame, s->stored);
    s->full = true;
    s->arrived.add(now);
    schedule_.arrived(id, now);
  }
  changed_.notify_all();
  return true;
}

std::optional<FrameHub::Taken> FrameHub::take(vision::Frame& frame,
                                              std::chrono::milliseconds timeout) {
  std::optional<Taken> taken;
  {
    std::unique_lock lock(mutex_);
    const auto deadline = Clock::now() + timeout;
    while (!closed_) {
      const auto now = Clock::now();
      std::optional<Clock::time_point> wake;
      if (const std::optional<int> id = schedule_.next(now, &wake)) {
        Slot& s = slots_.at(*id);
        std::swap(frame, s.stored);
        s.full = false;
        const std::int64_t skipped = schedule_.served(*id, now);
        s.detected.add(now);
        s.skipped.add(now, skipped);
        ++s.totals.detected;
        s.totals.skipped += skipped;
        taken = Taken{s.camera, skipped};
        break;
      }
      if (now >= deadline) break;
      changed_.wait_until(lock, wake ? std::min(*wake, deadline) : deadline);
    }
  }
  if (taken) changed_.notify_all();
  return taken;
}

void FrameHub::close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  changed_.notify_all();
}

FrameHub::Figures FrameHub::figures(int id) const {
  std::lock_guard lock(mutex_);
  const auto it = slots_.find(id);
  if (it == slots_.end()) return {};
  const Slot& s = it->second;
  const auto now = Clock::now();
  Figures f = s.totals;
  f.camera_fps = s.arrived.rate(now);
  f.detection_fps = s.detected.rate(now);
  f.skipped_fps = s.skipped.rate(now);
  return f;
}

std::vector<std::shared_ptr<CameraStage>> FrameHub::cameras() const {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<CameraStage>> out;
  for (const auto& [id, slot] : slots_) out.push_back(slot.camera);
  return out;
}

}  // namespace yolo::daemon
