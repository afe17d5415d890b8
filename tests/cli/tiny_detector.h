// SPDX-License-Identifier: Apache-2.0
#pragma once

// A detector small enough to run in microseconds, for CLI tests that need a model (and its INT8
// file) without the fixtures: [1,3,32,32] -> Conv -> Reshape -> [1,84,1024], a YOLOv8-shaped
// output as far as the quantizer's and the decoder's checks go.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <opencv2/imgcodecs.hpp>
#include <string>

#include "tests/runtime/test_model_builder.h"

namespace yolo::test {

// Saves the tiny detector as dir/NAME, with a `size` x `size` input.
inline std::filesystem::path tiny_detector_model(const std::filesystem::path& dir,
                                                 const std::string& name = "tiny_detector.onnx",
                                                 std::int64_t size = 32) {
  ModelBuilder b;
  b.input("images", {1, 3, size, size});
  b.random("w", {84, 3, 1, 1}, 2);
  b.ints("shape", {3}, {1, 84, size * size});
  b.node("Conv", {"images", "w"}, {"maps"}, "conv");
  b.node("Reshape", {"maps", "shape"}, {"out"}, "flatten");
  b.output("out");
  const std::filesystem::path saved =
      b.save("tiny_detector_" + std::to_string(::getpid()) + "_" + name);
  const std::filesystem::path path = dir / name;
  std::filesystem::rename(saved, path);
  return path;
}

// A folder with one small gray photo: enough calibration source for the tiny detector.
inline std::filesystem::path one_image_folder(const std::filesystem::path& dir) {
  const std::filesystem::path folder = dir / "frames";
  std::filesystem::create_directories(folder);
  cv::imwrite((folder / "gray.png").string(), cv::Mat(48, 64, CV_8UC3, cv::Scalar(90, 110, 130)));
  return folder;
}

}  // namespace yolo::test
