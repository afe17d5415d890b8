// SPDX-License-Identifier: Apache-2.0
#include "cli/common/annotated_output.h"

#include <opencv2/imgcodecs.hpp>

#include <filesystem>
#include <stdexcept>

namespace yolo::cli {

void AnnotatedOutput::write(const cv::Mat& frame) {
  if (single_image_) {
    if (!cv::imwrite(path_, frame)) {
      throw std::runtime_error("--out " + path_ +
                               ": cannot write the image (unknown extension or the folder is "
                               "not writable); use .jpg or .png");
    }
    return;
  }
  if (!writer_.isOpened()) {
    const std::string ext = std::filesystem::path(path_).extension().string();
    const int fourcc = ext == ".avi" ? cv::VideoWriter::fourcc('M', 'J', 'P', 'G')
                                     : cv::VideoWriter::fourcc('m', 'p', '4', 'v');
    if (!writer_.open(path_, fourcc, fps_, frame.size())) {
      throw std::runtime_error("--out " + path_ +
                               ": cannot open a video writer (use .mp4 or .avi in a writable "
                               "folder)");
    }
  }
  writer_.write(frame);
}

}  // namespace yolo::cli
