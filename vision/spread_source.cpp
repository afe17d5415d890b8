// SPDX-License-Identifier: Apache-2.0
#include "vision/spread_source.h"

#include <algorithm>
#include <stdexcept>

namespace yolo::vision {

std::vector<std::int64_t> spread_indices(std::int64_t pool, std::int64_t count) {
  if (pool < 0 || count < 0) {
    throw std::invalid_argument("spread_indices: pool " + std::to_string(pool) + " and count " +
                                std::to_string(count) + " must not be negative");
  }
  std::vector<std::int64_t> picks;
  const std::int64_t n = std::min(pool, count);
  picks.reserve(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k) {
    // The middle of stretch k of `n` equal stretches, in integers: floor((2k + 1) pool / 2n).
    picks.push_back((2 * k + 1) * pool / (2 * n));
  }
  return picks;
}

SpreadSource::SpreadSource(std::unique_ptr<FrameSource> inner, std::int64_t count,
                           std::int64_t pool, Reopen reopen)
    : inner_(std::move(inner)), count_(count), reopen_(std::move(reopen)) {
  if (count_ < 1) throw std::invalid_argument("SpreadSource: count must be at least 1");
  const std::int64_t known = inner_->frame_count();
  pool_ = known > 0 && pool > 0 ? std::min(known, pool) : std::max(known, pool);
  if (pool_ > 0) picks_ = spread_indices(pool_, count_);
}

bool SpreadSource::read(Frame& frame) {
  if (delivered_ >= count_) return false;
  if (pool_ == 0) {
    if (!inner_->read(frame)) return false;
    ++position_;
  } else {
    if (next_pick_ >= picks_.size()) return false;
    const std::int64_t wanted = picks_[next_pick_];
    do {
      if (!inner_->read(frame)) return spread_again() && read(frame);
    } while (position_++ < wanted);
    ++next_pick_;
    taken_.push_back(wanted);
  }
  frame.index = delivered_++;
  return true;
}

bool SpreadSource::spread_again() {
  if (reopened_ || position_ >= pool_) return false;
  reopened_ = true;
  const std::int64_t real = position_;
  const std::int64_t missing = count_ - delivered_;
  note_ = "the source's header says " + std::to_string(pool_) + " frames but " +
          std::to_string(real) + " could be read";
  std::unique_ptr<FrameSource> again;
  if (reopen_ && real > 0) again = reopen_();
  if (!again) {
    note_ += ": " + std::to_string(delivered_) + " of the " + std::to_string(count_) +
             " frame(s) asked were taken, from its first " + std::to_string(real);
    return false;
  }
  // The even spread over the frames that exist, less those taken, thinned evenly to what is
  // missing: the new frames fall between the ones already taken.
  std::vector<std::int64_t> candidates;
  for (const std::int64_t i : spread_indices(real, count_)) {
    if (std::find(taken_.begin(), taken_.end(), i) == taken_.end()) candidates.push_back(i);
  }
  std::vector<std::int64_t> picks;
  for (const std::int64_t k :
       spread_indices(static_cast<std::int64_t>(candidates.size()), missing)) {
    picks.push_back(candidates[static_cast<std::size_t>(k)]);
  }
  inner_ = std::move(again);
  delivered_before_ = delivered_;
  pool_ = real;
  position_ = 0;
  picks_ = std::move(picks);
  next_pick_ = 0;
  note_ += ": read again, the other " + std::to_string(picks_.size()) +
           " frame(s) spread over those " + std::to_string(real);
  return !picks_.empty();
}

std::string SpreadSource::describe() const {
  const std::string inner = inner_->describe();
  if (pool_ == 0) return inner + ", its first " + std::to_string(count_) + " frame(s)";
  const std::string of = pool_ == inner_->frame_count() ? "all " + std::to_string(pool_)
                                                        : "the first " + std::to_string(pool_);
  if (static_cast<std::int64_t>(picks_.size()) == pool_) return inner + ", " + of + " frame(s)";
  return inner + ", " + std::to_string(picks_.size()) + " frame(s) spread evenly over " + of;
}

std::int64_t SpreadSource::frame_count() const {
  return pool_ > 0 ? delivered_before_ + static_cast<std::int64_t>(picks_.size()) : 0;
}

}  // namespace yolo::vision
