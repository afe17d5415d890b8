// SPDX-License-Identifier: Apache-2.0
// detector/detector.cpp with models as users bring them: a custom-class YOLOv5 exported in FP16
// (names from the metadata, else the labels file), and imgsz auto following the frames' size.
#include "detector/detector.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <opencv2/imgcodecs.hpp>

#include "tests/runtime/test_model_builder.h"
#include "tests/support/fixtures.h"
#include "tests/support/temp_folder.h"

namespace yolo::detector {
namespace {

namespace fs = std::filesystem;
using test::ModelBuilder;

// float -> half bits for values of a normal half's range (the weights here, in [-1, 1)).
std::uint16_t half(float f) {
  std::uint32_t x = 0;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7FFFFFFFU) < 0x38800000U) return static_cast<std::uint16_t>((x >> 16) & 0x8000U);
  return static_cast<std::uint16_t>(((x >> 16) & 0x8000U) | ((((x >> 23) & 0xFF) - 112) << 10) |
                                    ((x >> 13) & 0x3FFU));
}

// A YOLOv5-style model with 3 classes in FP16: [1,3,32,32] -> Conv(8) -> [1,1024,8] (cx, cy, w,
// h, objectness, 3 class scores per row), float16 weights, input and output.
fs::path custom_yolov5_fp16(const fs::path& dir, bool with_names) {
  ModelBuilder b(17);
  b.input("images", {1, 3, 32, 32}, onnx::TensorProto::FLOAT16);
  std::vector<std::uint16_t> w(8 * 3);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = half(0.05F * static_cast<float>(i % 7) - 0.1F);
  // Boxes of 8 px around each cell, objectness and class scores that pass the threshold.
  const std::vector<float> bias{16.0F, 16.0F, 8.0F, 8.0F, 0.9F, 0.8F, 0.1F, 0.1F};
  std::vector<std::uint16_t> bias_bits;
  for (const float v : bias) bias_bits.push_back(half(v));
  b.raw("w", onnx::TensorProto::FLOAT16, {8, 3, 1, 1}, w);
  b.raw("b", onnx::TensorProto::FLOAT16, {8}, bias_bits);
  b.ints("shape", {3}, {1, 8, 1024});
  b.node("Conv", {"images", "w", "b"}, {"maps"}, "head");
  b.node("Reshape", {"maps", "shape"}, {"rows_t"}, "flatten");
  test::ModelBuilder::attr(b.node("Transpose", {"rows_t"}, {"output0"}, "rows"), "perm",
                           std::vector<std::int64_t>{0, 2, 1});
  b.output("output0");
  auto* out = b.proto().mutable_graph()->mutable_output(0);
  out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT16);
  if (with_names) {
    auto* names = b.proto().add_metadata_props();
    names->set_key("names");
    names->set_value("{0: 'helmet', 1: 'vest', 2: 'boot'}");
  }
  const fs::path path = dir / (with_names ? "ppe_named.onnx" : "ppe.onnx");
  std::ofstream(path, std::ios::binary) << b.proto().SerializeAsString();
  return path;
}

TEST(Detector, CustomClassYoloV5InFp16TakesNamesFromMetadataElseTheLabelsFile) {
  test::TempFolder dir;
  const fs::path labels = dir.path() / "labels.txt";
  std::ofstream(labels) << "hard hat\nhi-vis vest\nsafety boot\n";
  DetectorOptions options;
  options.labels = labels;

  options.model = custom_yolov5_fp16(dir.path(), false);
  Detector from_labels(options);
  EXPECT_EQ(from_labels.decoder(), vision::DecoderKind::kYolov5);
  EXPECT_EQ(from_labels.names().names(),
            (std::vector<std::string>{"hard hat", "hi-vis vest", "safety boot"}));
  const vision::Detections found = from_labels.detect(cv::Mat(48, 64, CV_8UC3, cv::Scalar(90)));
  ASSERT_FALSE(found.empty());
  // objectness x class score: class 0 wins every row.
  for (const auto& d : found) EXPECT_EQ(d.class_id, 0);

  options.model = custom_yolov5_fp16(dir.path(), true);
  Detector named(options);
  EXPECT_EQ(named.names().names(), (std::vector<std::string>{"helmet", "vest", "boot"}));
}

TEST(Detector, ImgszAutoFollowsTheFramesAspect) {
  YOLO_REQUIRE_FIXTURES();
  DetectorOptions options;
  options.model = test::fixtures_dir() / "models" / "yolov8n_carperson_dynaxes_int8dyn.onnx";
  options.engine.imgsz = runtime::InputSize::automatic(720, 1280);
  Detector detector(options);
  EXPECT_EQ(detector.engine().input_width(), 640);
  EXPECT_EQ(detector.engine().input_height(), 384);
  EXPECT_TRUE(detector.fits(cv::Size(1920, 1080)));  // 16:9 as well
  EXPECT_FALSE(detector.adapt_to(cv::Size(1280, 720)));
  // A portrait frame: the engine is planned again for it.
  EXPECT_FALSE(detector.fits(cv::Size(720, 1280)));
  EXPECT_TRUE(detector.adapt_to(cv::Size(720, 1280)));
  EXPECT_EQ(detector.engine().input_width(), 384);
  EXPECT_EQ(detector.engine().input_height(), 640);
  // The boxes are in the frame's pixels.
  const cv::Mat frame =
      cv::imread((test::fixtures_dir() / "images" / "person.jpg").string(), cv::IMREAD_COLOR);
  ASSERT_FALSE(frame.empty());
  detector.adapt_to(frame.size());
  for (const auto& d : detector.detect(frame)) {
    EXPECT_GE(d.box.x1, 0.0F);
    EXPECT_LE(d.box.x2, static_cast<float>(frame.cols));
    EXPECT_LE(d.box.y2, static_cast<float>(frame.rows));
  }

  // Other settings never plan again.
  options.engine.imgsz = runtime::InputSize::fixed(384, 640);
  Detector fixed(options);
  EXPECT_TRUE(fixed.fits(cv::Size(720, 1280)));
  EXPECT_FALSE(fixed.adapt_to(cv::Size(720, 1280)));
}

}  // namespace
}  // namespace yolo::detector
