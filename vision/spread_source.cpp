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
                           std::int64_t pool)
    : inner_(std::move(inner)), count_(count) {
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
      if (!inner_->read(frame)) return false;
    } while (position_++ < wanted);
    ++next_pick_;
  }
  frame.index = delivered_++;
  return true;
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
  return pool_ > 0 ? static_cast<std::int64_t>(picks_.size()) : 0;
}

}  // namespace yolo::vision
