// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "daemon/outputs/gpio/chip.h"

namespace yolo::daemon::gpio::test {

// GPIO chips in memory, behind the same interface as libgpiod. Output lines record every level
// they are driven to, with the time; input lines take levels from the test, as a button would
// give them, and turn them into edges. Levels here are physical (what a meter on the pin shows):
// active_low is applied as the kernel applies it. Chips can refuse to open (no permission), lines
// can be held by "another program", and a chip can lack edge events. Thread-safe: the code under
// test may run on a thread of its own.
class FakeGpio : public Backend {
 public:
  using Clock = std::chrono::steady_clock;

  // One level a line was driven to.
  struct Change {
    Clock::time_point time;
    bool high = false;
  };

  FakeGpio() : state_(std::make_shared<State>()) {}

  // A chip at /dev/NAME.
  void add_chip(const std::string& name, const std::string& label, unsigned lines,
                bool edges = true) {
    std::lock_guard lock(state_->mutex);
    state_->chips[name] = ChipState{label, lines, edges, false, {}};
  }
  void deny(const std::string& chip) {
    std::lock_guard lock(state_->mutex);
    state_->chips.at(chip).denied = true;
  }
  // Another program holds the line.
  void hold(const std::string& chip, unsigned offset, const std::string& consumer) {
    std::lock_guard lock(state_->mutex);
    state_->line(chip, offset).holder = consumer;
  }
  // Timestamps from this clock instead of the steady clock (tests that pass time in).
  void set_time(Clock::time_point t) {
    std::lock_guard lock(state_->mutex);
    state_->time = t;
  }

  // Every level the line was driven to, in order (its request's initial level first).
  std::vector<Change> history(const std::string& chip, unsigned offset) const {
    std::lock_guard lock(state_->mutex);
    return state_->line(chip, offset).history;
  }
  // The level now; nothing while no one holds the line.
  std::optional<bool> level(const std::string& chip, unsigned offset) const {
    std::lock_guard lock(state_->mutex);
    const LineState& l = state_->line(chip, offset);
    if (l.holder.empty()) return std::nullopt;
    return l.high;
  }
  std::string holder(const std::string& chip, unsigned offset) const {
    std::lock_guard lock(state_->mutex);
    return state_->line(chip, offset).holder;
  }
  // How many times the line was requested.
  int requests(const std::string& chip, unsigned offset) const {
    std::lock_guard lock(state_->mutex);
    return state_->line(chip, offset).requests;
  }
  // The bias an input was requested with.
  Bias bias(const std::string& chip, unsigned offset) const {
    std::lock_guard lock(state_->mutex);
    return state_->line(chip, offset).bias;
  }
  // Puts `high` on an input's pin: an edge for its reader when it changes.
  void input(const std::string& chip, unsigned offset, bool high) {
    std::lock_guard lock(state_->mutex);
    LineState& l = state_->line(chip, offset);
    if (l.high == high) return;
    l.high = high;
    if (!l.events) return;
    l.events->edges.push_back({high != l.active_low, state_->now().time_since_epoch()});
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t w = write(l.events->fd, &one, sizeof one);
  }

  std::string name() const override { return "fake GPIO"; }

  std::shared_ptr<Chip> open(const std::filesystem::path& device) override {
    std::lock_guard lock(state_->mutex);
    const std::string name = device.filename().string();
    const auto it = state_->chips.find(name);
    if (device.parent_path() != "/dev" || it == state_->chips.end()) {
      throw open_error(ENOENT, device);
    }
    if (it->second.denied) throw open_error(EACCES, device);
    return std::make_shared<FakeChip>(state_,
                                      ChipInfo{name, it->second.label, device, it->second.lines});
  }

  std::vector<std::filesystem::path> devices() const override {
    std::lock_guard lock(state_->mutex);
    std::vector<std::filesystem::path> out;
    for (const auto& [name, chip] : state_->chips) out.push_back("/dev/" + name);
    return out;
  }

 private:
  // The edges waiting for an input's reader; `fd` is readable while there are some.
  struct EventQueue {
    EventQueue() : fd(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}
    ~EventQueue() { close(fd); }
    int fd;
    std::deque<Edge> edges;
  };
  struct LineState {
    std::string holder;
    bool high = false;
    bool active_low = false;
    Bias bias = Bias::kAsIs;
    int requests = 0;
    std::vector<Change> history;
    std::shared_ptr<EventQueue> events;
  };
  struct ChipState {
    std::string label;
    unsigned lines = 0;
    bool edges = true;
    bool denied = false;
    std::map<unsigned, LineState> lines_state;
  };
  struct State {
    std::mutex mutex;
    std::map<std::string, ChipState> chips;
    std::optional<Clock::time_point> time;
    Clock::time_point now() const { return time ? *time : Clock::now(); }
    LineState& line(const std::string& chip, unsigned offset) {
      return chips.at(chip).lines_state[offset];
    }
    // A line never requested reads as an empty one.
    const LineState& line(const std::string& chip, unsigned offset) const {
      static const LineState kUntouched;
      const auto& lines = chips.at(chip).lines_state;
      const auto it = lines.find(offset);
      return it == lines.end() ? kUntouched : it->second;
    }
  };

  class FakeOutput : public OutputLine {
   public:
    FakeOutput(std::shared_ptr<State> state, std::string chip, unsigned offset)
        : state_(std::move(state)), chip_(std::move(chip)), offset_(offset) {}
    ~FakeOutput() override {
      set(false);
      std::lock_guard lock(state_->mutex);
      state_->line(chip_, offset_).holder.clear();
    }
    void set(bool active) override {
      std::lock_guard lock(state_->mutex);
      LineState& l = state_->line(chip_, offset_);
      l.high = active != l.active_low;
      l.history.push_back({state_->now(), l.high});
    }

   private:
    std::shared_ptr<State> state_;
    std::string chip_;
    unsigned offset_;
  };

  class FakeInput : public InputLine {
   public:
    FakeInput(std::shared_ptr<State> state, std::string chip, unsigned offset,
              std::shared_ptr<EventQueue> events)
        : state_(std::move(state)),
          chip_(std::move(chip)),
          offset_(offset),
          events_(std::move(events)) {}
    ~FakeInput() override {
      std::lock_guard lock(state_->mutex);
      LineState& l = state_->line(chip_, offset_);
      l.holder.clear();
      l.events.reset();
    }
    bool get() override {
      std::lock_guard lock(state_->mutex);
      const LineState& l = state_->line(chip_, offset_);
      return l.high != l.active_low;
    }
    std::optional<Edge> read_edge(std::chrono::milliseconds timeout) override {
      if (!events_) return std::nullopt;
      if (auto edge = pop()) return edge;
      pollfd fd{events_->fd, POLLIN, 0};
      poll(&fd, 1, static_cast<int>(timeout.count()));
      return pop();
    }
    int event_fd() const override { return events_ ? events_->fd : -1; }

   private:
    std::optional<Edge> pop() {
      std::lock_guard lock(state_->mutex);
      if (events_->edges.empty()) return std::nullopt;
      const Edge edge = events_->edges.front();
      events_->edges.pop_front();
      if (events_->edges.empty()) {
        std::uint64_t count = 0;
        [[maybe_unused]] const ssize_t r = read(events_->fd, &count, sizeof count);
      }
      return edge;
    }

    std::shared_ptr<State> state_;
    std::string chip_;
    unsigned offset_;
    std::shared_ptr<EventQueue> events_;
  };

  class FakeChip : public Chip {
   public:
    FakeChip(std::shared_ptr<State> state, ChipInfo info)
        : state_(std::move(state)), info_(std::move(info)) {}
    const ChipInfo& info() const override { return info_; }

    std::unique_ptr<OutputLine> request_output(const OutputRequest& r) override {
      std::lock_guard lock(state_->mutex);
      LineState& l = claim(r.offset, r.consumer);
      l.active_low = r.active_low;
      l.high = r.initial != r.active_low;
      l.history.push_back({state_->now(), l.high});
      return std::make_unique<FakeOutput>(state_, info_.name, r.offset);
    }

    std::unique_ptr<InputLine> request_input(const InputRequest& r) override {
      std::lock_guard lock(state_->mutex);
      if (r.edges && !state_->chips.at(info_.name).edges) {
        throw request_error(ENXIO, info_, r.offset, "");
      }
      LineState& l = claim(r.offset, r.consumer);
      l.active_low = r.active_low;
      l.bias = r.bias;
      // A pull resistor sets the level of a pin nothing drives.
      if (r.bias == Bias::kPullUp || r.bias == Bias::kPullDown) l.high = r.bias == Bias::kPullUp;
      if (r.edges) l.events = std::make_shared<EventQueue>();
      return std::make_unique<FakeInput>(state_, info_.name, r.offset, l.events);
    }

   private:
    LineState& claim(unsigned offset, const std::string& consumer) {
      check_offset(info_, offset);
      LineState& l = state_->line(info_.name, offset);
      if (!l.holder.empty()) throw request_error(EBUSY, info_, offset, l.holder);
      l.holder = consumer;
      ++l.requests;
      return l;
    }

    std::shared_ptr<State> state_;
    ChipInfo info_;
  };

  std::shared_ptr<State> state_;
};

}  // namespace yolo::daemon::gpio::test
