// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string_view>
#include <vector>

#include <opencv2/core.hpp>

#include "vision/class_names.h"
#include "vision/detection.h"

namespace yolo::vision {

struct AnnotateOptions {
  // Box line width in pixels; 0 picks one from the image size, as Ultralytics does.
  int line_width = 0;
  // Append the score to each label ("dog 0.87").
  bool show_score = true;
  // Areas labels stay out of where they can, as out of better detections' labels: the band of a
  // status line drawn afterwards (status_band), which would hide them.
  std::vector<cv::Rect> keep_clear;
};

// The colour of a class (BGR): Ultralytics' 20-colour palette, so classes look the same here as
// in Ultralytics' own plots.
cv::Scalar class_color(int class_id);

// Draws each detection's box and a filled label ("name score") in place on a BGR image. A label
// goes above its box when there is room and no better detection's label is there, else inside
// the box's top edge, below the box or inside its bottom edge; labels always stay inside the
// image, and where they must overlap, the better detection's is drawn on top.
void annotate(cv::Mat& bgr, const Detections& detections, const ClassNames& names,
              const AnnotateOptions& options = {});

// Draws one line of status text ("INT8 2 threads 14.2 FPS 52C") on a dark band at the top left.
void draw_status(cv::Mat& bgr, std::string_view text);

// The band draw_status() fills for `text` on an image of this size.
cv::Rect status_band(const cv::Mat& bgr, std::string_view text);

// The box line width annotate() uses on an image of this size.
int line_width(const cv::Mat& bgr);

// Draws `text` on a band filled with `fill` (the ink black or white, whichever reads), its top-left
// corner at `at` and kept inside the image, in the labels' font times `size`; returns the band.
// For tags beside what annotate() draws (a track's id, a zone's count).
cv::Rect draw_tag(cv::Mat& bgr, std::string_view text, cv::Point at, const cv::Scalar& fill,
                  double size = 1.0);

}  // namespace yolo::vision
