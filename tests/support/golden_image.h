#pragma once

// Reads the golden letterboxed inputs (lossless BGR PNGs in ../shared/fixtures/golden) as RGB
// bytes, the order the network input uses. Tests only: OpenCV is a test dependency of runtime/.
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <cstdint>
#include <filesystem>
#include <vector>

namespace yolo::test {

// RGB, 8 bits per channel, row-major; empty when the file cannot be read.
inline std::vector<std::uint8_t> read_rgb(const std::filesystem::path& path, int& width,
                                          int& height) {
  const cv::Mat bgr = cv::imread(path.string(), cv::IMREAD_COLOR);
  if (bgr.empty()) return {};
  cv::Mat rgb;
  cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
  width = rgb.cols;
  height = rgb.rows;
  return {rgb.data, rgb.data + rgb.total() * rgb.elemSize()};
}

}  // namespace yolo::test
