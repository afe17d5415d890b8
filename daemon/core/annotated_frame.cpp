// SPDX-License-Identifier: Apache-2.0
#include "daemon/core/annotated_frame.h"

#include <opencv2/imgproc.hpp>

#include "tracking/draw.h"
#include "vision/annotate.h"

namespace yolo::daemon {

void draw_result(cv::Mat& bgr, const FrameResult& result, std::string_view status_line) {
  // The crops motion had detected, thin and grey under the boxes: where the model looked.
  if (result.motion) {
    for (const cv::Rect& crop : result.motion->regions) {
      cv::rectangle(bgr, crop & cv::Rect(0, 0, bgr.cols, bgr.rows), cv::Scalar(160, 160, 160), 1);
    }
  }
  if (result.model) {
    vision::AnnotateOptions options;
    // Labels of boxes at the top of the frame move below them rather than under the status line.
    if (!status_line.empty()) options.keep_clear.push_back(vision::status_band(bgr, status_line));
    vision::annotate(bgr, result.detections, result.model->names, options);
    if (result.scene) {
      const SceneState& s = *result.scene;
      tracking::draw_scene(
          bgr, {result.tracks, s.zones, s.lines, s.counts, s.occupancy, result.model->names});
    }
  }
  if (!status_line.empty()) vision::draw_status(bgr, status_line);
}

}  // namespace yolo::daemon
