// SPDX-License-Identifier: Apache-2.0
#include "cli/common/progress.h"

#include <algorithm>

namespace yolo::cli {

namespace {

constexpr int kBarWidth = 24;
// A bar appears once a step has run this long, and is redrawn at most this often.
constexpr auto kBarDelay = std::chrono::seconds(1);
constexpr auto kBarPeriod = std::chrono::milliseconds(100);
// Without a terminal, a line this often during a long step.
constexpr auto kLinePeriod = std::chrono::seconds(10);

}  // namespace

Progress::Progress(std::FILE* out, bool terminal) : out_(out), terminal_(terminal) {}

double Progress::fraction(std::size_t done, double seconds, std::size_t target_queries,
                          double target_seconds) {
  const double by_count =
      target_queries > 0 ? static_cast<double>(done) / static_cast<double>(target_queries) : 1.0;
  const double by_time = target_seconds > 0 ? seconds / target_seconds : 1.0;
  return std::clamp(std::min(by_count, by_time), 0.0, 1.0);
}

void Progress::begin(const std::string& label, const std::string& unit, std::size_t queries,
                     double seconds) {
  label_ = label;
  unit_ = unit;
  target_queries_ = queries;
  target_seconds_ = seconds;
  started_ = last_drawn_ = Clock::now();
  bar_shown_ = false;
}

void Progress::update(std::size_t done, double seconds) {
  const auto now = Clock::now();
  if (terminal_) {
    if (now - started_ < kBarDelay || now - last_drawn_ < kBarPeriod) return;
  } else if (now - last_drawn_ < kLinePeriod) {
    return;
  }
  last_drawn_ = now;
  draw(done, seconds);
}

void Progress::draw(std::size_t done, double seconds) {
  const double f = fraction(done, seconds, target_queries_, target_seconds_);
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string.
  std::string targets = std::to_string(done);
  if (target_queries_ > 0) {
    targets += '/';
    targets += std::to_string(target_queries_);
  }
  targets += ' ';
  targets += unit_;
  targets += ", ";
  targets += std::to_string(static_cast<int>(seconds));
  if (target_seconds_ > 0) {
    targets += '/';
    targets += std::to_string(static_cast<int>(target_seconds_ + 0.5));
  }
  targets += " s";
  if (terminal_) {
    const int filled = static_cast<int>(f * kBarWidth);
    const std::string bar = std::string(static_cast<std::size_t>(filled), '#') +
                            std::string(static_cast<std::size_t>(kBarWidth - filled), '.');
    // \r and "erase to the end of the line" redraw it in place.
    std::fprintf(out_, "\r%s [%s] %3d%%  %s\x1b[K", label_.c_str(), bar.c_str(),
                 static_cast<int>(f * 100), targets.c_str());
    bar_shown_ = true;
  } else {
    std::fprintf(out_, "%s: %d%%, %s\n", label_.c_str(), static_cast<int>(f * 100),
                 targets.c_str());
  }
  std::fflush(out_);
}

void Progress::end(const std::string& summary) {
  if (bar_shown_) std::fprintf(out_, "\r\x1b[K");
  bar_shown_ = false;
  std::fprintf(out_, "%s\n", summary.c_str());
  std::fflush(out_);
}

}  // namespace yolo::cli
