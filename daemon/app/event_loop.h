// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <signal.h>
#include <systemd/sd-event.h>

#include <chrono>
#include <exception>
#include <functional>
#include <memory>

namespace yolo::daemon {

// The control loop's event sources on systemd's sd-event, as systemd's own small daemons
// (timesyncd, networkd) are written: each duty is a descriptor to read or a timer of its own,
// and one loop dispatches them on the calling thread. Time is CLOCK_MONOTONIC.
class EventLoop {
 public:
  using Callback = std::function<void()>;
  using Duration = std::chrono::microseconds;

  // One registered source; removing it (destruction) stops its callback. Move-only. A callback
  // may remove other sources, not its own (its std::function would be destroyed while it runs).
  class Source {
   public:
    Source();
    ~Source();
    Source(Source&& other) noexcept;
    Source& operator=(Source&& other) noexcept;
    Source(const Source&) = delete;
    Source& operator=(const Source&) = delete;

    // A one-shot timer: fires once, `after` from now (again if it was already armed or fired).
    void arm(Duration after);

    // What sd-event's C callback is handed (event_loop.cpp).
    struct Entry;

   private:
    friend class EventLoop;
    sd_event_source* source_ = nullptr;
    std::unique_ptr<Entry> entry_;
  };

  // Throws std::system_error when sd-event cannot be set up.
  EventLoop();
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  // Calls `on_ready` each time `fd` is readable (level-triggered: until it is read empty).
  [[nodiscard]] Source readable(int fd, Callback on_ready);
  // Calls `on_tick` every `period`, the first time one period from now.
  [[nodiscard]] Source every(Duration period, Callback on_tick);
  // A timer that fires only once armed (Source::arm), e.g. a debounce.
  [[nodiscard]] Source one_shot(Callback on_fire);

  // Dispatches until exit(). While it waits (and only then), the calling thread's signal mask is
  // `wait_mask` when one is given: handled signals are let in without interrupting callbacks.
  // Throws std::system_error on a failure of sd-event itself.
  void run(const sigset_t* wait_mask = nullptr);
  // Makes run() return once the current callback is done.
  void exit();

 private:
  Source add_timer(Duration first, Duration period, Callback callback, bool enabled);

  sd_event* event_ = nullptr;
  // An exception a callback threw, rethrown by run(): it must not cross sd-event's C frames.
  std::exception_ptr failure_;
};

}  // namespace yolo::daemon
