// SPDX-License-Identifier: Apache-2.0
#include "daemon/pipeline/capture.h"
#include "text/format.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <thread>

namespace yolo::daemon {

namespace {

using Clock = std::chrono::steady_clock;

vision::SourceSpec spec_of(const config::SourceConfig& c) {
  vision::SourceSpec spec;
  spec.uri = c.uri;
  spec.loop = c.loop;
  spec.realtime = c.realtime;
  spec.width = c.width;
  spec.height = c.height;
  spec.fps = c.fps;
  spec.fourcc = c.fourcc;
  return spec;
}

// How long after a camera device appears it is opened (udev sets its group meanwhile).
constexpr auto kDeviceSettle = std::chrono::milliseconds(300);

}  // namespace

Capture::Capture(Events& events, FrameHub& hub, std::shared_ptr<CameraStage> camera,
                 double detect_fps, bool named)
    : events_(events),
      hub_(hub),
      camera_(camera->name()),
      id_(hub.add(std::move(camera), detect_fps)),
      named_(named),
      wake_fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

void Capture::emit(config::LogLevel level, fieldlog::EventKind kind, const std::string& message,
                   nlohmann::json fields) const {
  fields["camera"] = camera_;
  events_.emit(level, kind, named_ ? "camera " + camera_ + ": " + message : message,
               std::move(fields));
}

void Capture::set_detect_fps(double detect_fps) {
  hub_.set_detect_fps(id_, detect_fps);
}

FrameHub::Figures Capture::figures() const {
  return hub_.figures(id_);
}

void Capture::wake() {
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = write(wake_fd_.get(), &one, sizeof one);
}

Capture::~Capture() {
  stop(std::chrono::milliseconds(2000));
}

void Capture::start(const config::SourceConfig& source) {
  {
    std::lock_guard lock(mutex_);
    config_ = source;
    stopping_ = false;
  }
  beat();
  worker_.start("capture", [this] { run(); });
}

void Capture::reconfigure(const config::SourceConfig& source) {
  {
    std::lock_guard lock(mutex_);
    config_ = source;
    ++generation_;
  }
  wake();
}

bool Capture::stop(std::chrono::milliseconds limit) {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake();
  hub_.remove(id_);
  return worker_.stop_within(limit);
}

Capture::State Capture::state() const {
  std::lock_guard lock(mutex_);
  return state_;
}

SourceStatus Capture::status() const {
  std::lock_guard lock(mutex_);
  SourceStatus s{.state = state_,
                 .uri = config_.uri,
                 .description = description_,
                 .frames = frames_,
                 .reopened = reopened_,
                 .dropped = hub_.figures(id_).replaced,
                 .last_error = last_error_,
                 .retry_in_s = {}};
  if (state_ == State::kLost && retry_at_) {
    const double left = std::chrono::duration<double>(*retry_at_ - Clock::now()).count();
    s.retry_in_s = std::max(0.0, text::rounded(left, 1));
  }
  return s;
}

std::chrono::steady_clock::time_point Capture::heartbeat() const {
  return Clock::time_point(Clock::duration(heartbeat_ns_.load()));
}

void Capture::beat() {
  heartbeat_ns_.store(Clock::now().time_since_epoch().count());
}

void Capture::set_state(State state) {
  std::lock_guard lock(mutex_);
  state_ = state;
}

bool Capture::wait_before_retry(double seconds, std::uint64_t generation, DeviceWatch* device) {
  const auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(seconds));
  {
    std::lock_guard lock(mutex_);
    state_ = State::kLost;
    retry_at_ = until;
  }
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return false;
      if (generation_ != generation) return true;
    }
    const auto now = Clock::now();
    if (now >= until) return true;
    // Woken at least every second only to show the thread is alive.
    const auto wait = std::min(std::chrono::ceil<std::chrono::milliseconds>(until - now),
                               std::chrono::milliseconds(1000));
    pollfd fds[2] = {{wake_fd_.get(), POLLIN, 0}, {device ? device->fd() : -1, POLLIN, 0}};
    poll(fds, 2, static_cast<int>(wait.count()));
    beat();
    if (fds[0].revents & POLLIN) {
      std::uint64_t count = 0;
      [[maybe_unused]] const ssize_t n = read(wake_fd_.get(), &count, sizeof count);
    }
    if (device && (fds[1].revents & POLLIN) && device->changed()) {
      // udev gives a new node its group a moment after the kernel makes it; opening before that
      // would only fail with "permission denied".
      std::this_thread::sleep_for(kDeviceSettle);
      emit(config::LogLevel::kInfo, fieldlog::EventKind::kSourceAppeared,
           device->device().string() + " appeared; opening it now",
           {{"device", device->device().string()}});
      return true;
    }
  }
}

void Capture::run() {
  // Frame numbers continue across reopenings, so a gap in them always means a dropped frame.
  std::int64_t next_index = 0;
  double backoff = 0;
  std::uint64_t backoff_generation = 0;
  std::string reported;  // the last failure logged as a warning, to log repeats quietly
  // Kept across attempts, so a device that appears while an attempt fails is not missed.
  std::unique_ptr<DeviceWatch> device;
  vision::Frame frame;
  for (;;) {
    config::SourceConfig config;
    std::uint64_t generation = 0;
    {
      std::lock_guard lock(mutex_);
      if (stopping_) break;
      config = config_;
      generation = generation_;
      // A lost camera's retries leave it "lost" until frames come: a status flickering to
      // "opening" at each attempt would hide that it is still away. A new source is "opening".
      if (state_ != State::kLost || generation != backoff_generation) state_ = State::kOpening;
      retry_at_.reset();
    }
    if (backoff <= 0 || generation != backoff_generation) {
      backoff = config.reconnect_s;
      backoff_generation = generation;
    }
    beat();

    std::unique_ptr<vision::FrameSource> source;
    std::string failure;
    try {
      source = vision::open_source(spec_of(config));
    } catch (const std::exception& e) {
      failure = e.what();
    }
    if (source) {
      const std::string described = source->describe();
      bool had_error = false;
      bool reopened = false;
      {
        std::lock_guard lock(mutex_);
        description_ = described;
        had_error = !last_error_.empty();
        reopened = frames_ > 0 || had_error;
        if (reopened) ++reopened_;
      }
      emit(config::LogLevel::kInfo, fieldlog::EventKind::kSourceOpened,
           (had_error ? "source reopened: " : "source opened: ") + described,
           {{"uri", config.uri}, {"description", described}, {"reopened", reopened}});
      const bool live = source->is_live();
      bool delivered = false;
      for (;;) {
        beat();
        bool ok = false;
        try {
          ok = source->read(frame);
        } catch (const std::exception& e) {
          failure = e.what();
        }
        if (!ok) {
          if (failure.empty()) failure = "source '" + config.uri + "' stopped delivering frames";
          break;
        }
        frame.index = next_index++;
        if (!hub_.put(id_, frame, !live)) break;
        if (!delivered) {
          delivered = true;
          backoff = config.reconnect_s;
          std::lock_guard lock(mutex_);
          state_ = State::kStreaming;
          last_error_.clear();
          reported.clear();
        }
        {
          std::lock_guard lock(mutex_);
          ++frames_;
          if (stopping_ || generation_ != generation) break;
        }
      }
      source.reset();
    }
    {
      std::lock_guard lock(mutex_);
      if (stopping_) break;
      if (generation_ != generation) continue;
      last_error_ = failure;
    }
    const std::string message = failure + "; retrying in " + text::duration_text(backoff);
    emit(failure == reported ? config::LogLevel::kDebug : config::LogLevel::kWarning,
         fieldlog::EventKind::kSourceLost, message,
         {{"uri", config.uri}, {"error", failure}, {"retry_in_s", backoff}});
    reported = failure;
    if (!device || device->device() != vision::camera_device(config.uri)) {
      device.reset();
      if (const auto node = vision::camera_device(config.uri)) {
        try {
          device = std::make_unique<DeviceWatch>(*node);
        } catch (const std::exception& e) {
          emit(config::LogLevel::kWarning, fieldlog::EventKind::kSourceWatchFailed,
               std::string(e.what()) + "; the camera is retried on its backoff only",
               {{"error", e.what()}});
        }
      }
    }
    if (!wait_before_retry(backoff, generation, device.get())) break;
    backoff = std::min(backoff * 2, std::max(config.reconnect_s, kMaxBackoffSeconds));
  }
  set_state(State::kStopped);
}

}  // namespace yolo::daemon
