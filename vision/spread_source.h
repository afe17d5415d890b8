// SPDX-License-Identifier: Apache-2.0
#pragma once

// Frames drawn evenly across a source instead of the first N in a row: calibration frames must
// cover what a camera sees over its whole clip or day (a quantizer calibrated on the first seconds
// of a scene has seen one moment of it).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "vision/capture.h"

namespace yolo::vision {

// The indices of `count` frames spread evenly over `pool` frames (0 .. pool-1): the middle of
// each of `count` equal stretches, ascending; every index when count >= pool.
std::vector<std::int64_t> spread_indices(std::int64_t pool, std::int64_t count);

// Delivers at most `count` frames of `inner`, spread evenly over its first `pool` frames (pool 0:
// all of them). Where the inner source knows its length (a video file, a folder of images) the
// frames spread over it; where it does not (a camera, a stream) and no pool is given, they are
// the first `count` frames. Frames in between are read and dropped, never run.
// A source that ends before the length it claimed (a video whose header counts more frames than
// it holds) is opened again with `reopen`, when given, and the frames still missing are spread
// over the frames that exist, between the ones already taken; note() says so.
class SpreadSource : public FrameSource {
 public:
  using Reopen = std::function<std::unique_ptr<FrameSource>()>;

  SpreadSource(std::unique_ptr<FrameSource> inner, std::int64_t count, std::int64_t pool = 0,
               Reopen reopen = {});

  bool read(Frame& frame) override;
  // The inner source's description, then which of its frames are taken.
  std::string describe() const override;
  double fps() const override { return inner_->fps(); }
  std::int64_t frame_count() const override;
  bool is_live() const override { return inner_->is_live(); }
  // What did not go as the source said, for the user (empty when all went as it said): "the
  // source's header says 682 frames but 341 could be read: ...".
  const std::string& note() const { return note_; }

 private:
  std::unique_ptr<FrameSource> inner_;
  std::int64_t count_;
  // The frames drawn from (0 when unknown: then the first count_ are taken).
  std::int64_t pool_;
  std::vector<std::int64_t> picks_;
  std::size_t next_pick_ = 0;
  // Frames read from the inner source so far.
  std::int64_t position_ = 0;
  std::int64_t delivered_ = 0;
  Reopen reopen_;
  // The inner frames delivered, for a second pass not to take them again.
  std::vector<std::int64_t> taken_;
  bool reopened_ = false;
  // Frames delivered before the second pass (whose picks_ are the rest).
  std::int64_t delivered_before_ = 0;
  std::string note_;

  // The source ended at position_ before pool_: spread what is missing over what exists.
  bool spread_again();
};

}  // namespace yolo::vision
