// SPDX-License-Identifier: Apache-2.0
#include "daemon/app/event_loop.h"

#include <pthread.h>
#include <sys/epoll.h>

#include <cstdint>
#include <exception>
#include <system_error>
#include <utility>

namespace yolo::daemon {

namespace {

void check(int r, const char* what) {
  if (r < 0) throw std::system_error(-r, std::generic_category(), what);
}

std::uint64_t usec(EventLoop::Duration d) {
  return static_cast<std::uint64_t>(d.count());
}

}  // namespace

// What a source's C callback needs: the C++ callback, a timer's period (zero: not repeating),
// and where an exception goes (it must not cross sd-event's C frames).
struct EventLoop::Source::Entry {
  Callback callback;
  Duration period{0};
  std::exception_ptr* failure = nullptr;
  sd_event* event = nullptr;

  int call() noexcept {
    try {
      callback();
    } catch (...) {
      *failure = std::current_exception();
      sd_event_exit(event, -1);
    }
    return 0;
  }
};

namespace {

int on_readable(sd_event_source*, int, std::uint32_t, void* userdata) {
  return static_cast<EventLoop::Source::Entry*>(userdata)->call();
}

int on_time(sd_event_source* source, std::uint64_t, void* userdata) {
  auto* entry = static_cast<EventLoop::Source::Entry*>(userdata);
  // Re-armed from now, not from when it was due: a late tick does not bring a burst after it.
  if (entry->period.count() > 0) sd_event_source_set_time_relative(source, usec(entry->period));
  return entry->call();
}

}  // namespace

EventLoop::Source::Source() = default;

EventLoop::Source::~Source() {
  if (source_) sd_event_source_disable_unref(source_);
}

EventLoop::Source::Source(Source&& other) noexcept
    : source_(std::exchange(other.source_, nullptr)), entry_(std::move(other.entry_)) {}

EventLoop::Source& EventLoop::Source::operator=(Source&& other) noexcept {
  if (this != &other) {
    if (source_) sd_event_source_disable_unref(source_);
    source_ = std::exchange(other.source_, nullptr);
    entry_ = std::move(other.entry_);
  }
  return *this;
}

void EventLoop::Source::arm(Duration after) {
  check(sd_event_source_set_time_relative(source_, usec(after)), "arming a control loop timer");
  check(sd_event_source_set_enabled(source_, SD_EVENT_ONESHOT), "arming a control loop timer");
}

EventLoop::EventLoop() {
  check(sd_event_new(&event_), "creating the control loop (sd-event)");
}

EventLoop::~EventLoop() {
  sd_event_unref(event_);
}

EventLoop::Source EventLoop::readable(int fd, Callback on_ready) {
  Source s;
  s.entry_ = std::make_unique<Source::Entry>(
      Source::Entry{std::move(on_ready), Duration{0}, &failure_, event_});
  check(sd_event_add_io(event_, &s.source_, fd, EPOLLIN, on_readable, s.entry_.get()),
        "watching a descriptor in the control loop");
  return s;
}

EventLoop::Source EventLoop::every(Duration period, Callback on_tick) {
  return add_timer(period, period, std::move(on_tick), true);
}

EventLoop::Source EventLoop::one_shot(Callback on_fire) {
  return add_timer(Duration{0}, Duration{0}, std::move(on_fire), false);
}

EventLoop::Source EventLoop::add_timer(Duration first, Duration period, Callback callback,
                                       bool enabled) {
  Source s;
  s.entry_ = std::make_unique<Source::Entry>(
      Source::Entry{std::move(callback), period, &failure_, event_});
  // Accuracy 1 ms: the default (250 ms) lets timers coalesce, which suits wake-ups of
  // seconds but would stretch a 250 ms tick to 500.
  check(sd_event_add_time_relative(event_, &s.source_, CLOCK_MONOTONIC, usec(first), 1000, on_time,
                                   s.entry_.get()),
        "adding a control loop timer");
  check(sd_event_source_set_enabled(s.source_, enabled ? SD_EVENT_ON : SD_EVENT_OFF),
        "adding a control loop timer");
  return s;
}

void EventLoop::run(const sigset_t* wait_mask) {
  for (;;) {
    int r = sd_event_prepare(event_);
    if (r == 0) {
      sigset_t kept;
      if (wait_mask) pthread_sigmask(SIG_SETMASK, wait_mask, &kept);
      r = sd_event_wait(event_, UINT64_MAX);
      if (wait_mask) pthread_sigmask(SIG_SETMASK, &kept, nullptr);
    }
    if (r > 0) r = sd_event_dispatch(event_);
    if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
    check(r, "the control loop (sd-event)");
    if (sd_event_get_state(event_) == SD_EVENT_FINISHED) return;
  }
}

void EventLoop::exit() {
  sd_event_exit(event_, 0);
}

}  // namespace yolo::daemon
