// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <opencv2/core.hpp>
#include <opencv2/videoio.hpp>

#include <string>

namespace yolo::cli {

// Writes annotated frames to --out (detect, track): an image file for a single still, a video
// otherwise (.avi Motion-JPEG, else MPEG-4), at the source's rate.
class AnnotatedOutput {
 public:
  AnnotatedOutput(std::string path, bool single_image, double fps)
      : path_(std::move(path)), single_image_(single_image), fps_(fps > 0 ? fps : 10.0) {}

  // Throws std::runtime_error naming --out and what to do when the file cannot be written.
  void write(const cv::Mat& frame);

 private:
  std::string path_;
  bool single_image_;
  double fps_;
  cv::VideoWriter writer_;
};

}  // namespace yolo::cli
