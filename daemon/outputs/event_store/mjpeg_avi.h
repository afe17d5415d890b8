// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <opencv2/core/types.hpp>

namespace yolo::daemon {

// One JPEG of a clip and where it stands in it: its frame number at the clip's rate (0 for the
// first; strictly increasing; a gap repeats the frame before, which keeps the clip's timing when
// the camera skipped some).
struct MjpegFrame {
  std::span<const unsigned char> jpeg;
  std::int64_t index = 0;
};

// The JPEGs as they are (no decode, no encode) muxed by libavformat into a Motion-JPEG AVI of
// `size` at `fps` frames a second, returned as the file's bytes (so its size is known before it
// is written). Throws std::runtime_error naming the libavformat step that failed.
std::string mux_mjpeg_avi(const std::vector<MjpegFrame>& frames, cv::Size size, double fps);

}  // namespace yolo::daemon
