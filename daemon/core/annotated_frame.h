// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string_view>

#include <opencv2/core.hpp>

#include "daemon/core/frame_result.h"

namespace yolo::daemon {

// Draws in place on `bgr` (the result's frame or a copy of it) what a person watching sees: the
// detections' boxes and labels, the tracks' ids and trails, the zones and lines with their counts,
// and `status_line` on a band at the top left when it is not empty. The live stream and the event
// snapshots and clips draw the same way.
void draw_result(cv::Mat& bgr, const FrameResult& result, std::string_view status_line = {});

}  // namespace yolo::daemon
