// SPDX-License-Identifier: Apache-2.0
#pragma once

// Reads the golden letterboxed inputs (lossless BGR PNGs in ../shared/fixtures/golden) as RGB
// bytes, the order the network input uses. Tests only: OpenCV is a test dependency of runtime/.
#include <gtest/gtest.h>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/fixtures.h"

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

// The golden input of one fixture case ("yolo11n_320_fp32", "dog"): a size x size letterboxed
// image, as RGB bytes. A missing file or another size fails the test.
inline std::vector<std::uint8_t> read_golden_input(const std::string& model_case,
                                                   const std::string& image, int size) {
  int width = 0, height = 0;
  auto rgb = read_rgb(fixtures_dir() / "golden" / (model_case + "__" + image + ".input.png"), width,
                      height);
  EXPECT_EQ(width, size) << model_case << " " << image;
  EXPECT_EQ(height, size) << model_case << " " << image;
  return rgb;
}

}  // namespace yolo::test
