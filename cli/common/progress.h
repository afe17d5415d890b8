// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>

namespace yolo::cli {

// How far a long run is, on `out` (stderr): on a terminal a bar redrawn in place once a step has
// run for a second; elsewhere (a pipe, a log file) a plain line when a step ends and every 10 s
// of a long one, so logs stay readable.
class Progress {
 public:
  // `terminal`: draw the bar (normally isatty(fileno(out))).
  Progress(std::FILE* out, bool terminal);

  // A step starts: `label` names it, its target is `count` `unit`s (queries, frames; 0: none)
  // and `seconds` (0: none); it ends when both are reached.
  void begin(const std::string& label, const std::string& unit, std::size_t count, double seconds);
  // The step has done `done` units in `seconds`.
  void update(std::size_t done, double seconds);
  // The step ended: the bar is cleared and `summary` printed as a line.
  void end(const std::string& summary);

  // The share of the step done, 0..1: the less advanced of its two targets.
  static double fraction(std::size_t done, double seconds, std::size_t target_queries,
                         double target_seconds);

 private:
  using Clock = std::chrono::steady_clock;

  void draw(std::size_t done, double seconds);

  std::FILE* out_;
  bool terminal_;
  std::string label_;
  std::string unit_;
  std::size_t target_queries_ = 0;
  double target_seconds_ = 0;
  // When the bar (or the last plain line) was drawn, and whether a bar is on screen.
  Clock::time_point started_, last_drawn_;
  bool bar_shown_ = false;
};

}  // namespace yolo::cli
