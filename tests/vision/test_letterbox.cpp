// SPDX-License-Identifier: Apache-2.0
#include "vision/letterbox.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "tests/vision/golden_cases.h"

namespace yolo::vision {
namespace {

// Ultralytics' LetterBox written the plain way (resize, copyMakeBorder), as the reference for sizes
// the golden files do not cover.
cv::Mat reference_letterbox(const cv::Mat& bgr, cv::Size input) {
  const double r = std::min(static_cast<double>(input.height) / bgr.rows,
                            static_cast<double>(input.width) / bgr.cols);
  const cv::Size unpad(static_cast<int>(std::nearbyint(bgr.cols * r)),
                       static_cast<int>(std::nearbyint(bgr.rows * r)));
  const double dw = (input.width - unpad.width) / 2.0;
  const double dh = (input.height - unpad.height) / 2.0;
  cv::Mat resized;
  cv::resize(bgr, resized, unpad, 0, 0, cv::INTER_LINEAR);
  cv::Mat out;
  cv::copyMakeBorder(
      resized, out, static_cast<int>(std::nearbyint(dh - 0.1)),
      static_cast<int>(std::nearbyint(dh + 0.1)), static_cast<int>(std::nearbyint(dw - 0.1)),
      static_cast<int>(std::nearbyint(dw + 0.1)), cv::BORDER_CONSTANT, cv::Scalar(114, 114, 114));
  return out;
}

// Checks the three layouts against an expected BGR letterboxed image, exactly.
void expect_all_layouts(const cv::Mat& frame, const cv::Mat& expected_bgr,
                        const std::string& what) {
  const cv::Size input = expected_bgr.size();
  cv::Mat rgb;
  cv::cvtColor(expected_bgr, rgb, cv::COLOR_BGR2RGB);
  const std::size_t hw = static_cast<std::size_t>(input.area());

  Letterboxer u8(input, TensorLayout::kNhwcUint8);
  std::vector<std::uint8_t> bytes(u8.element_count());
  u8.run(frame, bytes);
  EXPECT_EQ(0, std::memcmp(bytes.data(), rgb.data, bytes.size())) << what << ": NHWC uint8";

  Letterboxer nchw(input, TensorLayout::kNchwFloat);
  Letterboxer nhwc(input, TensorLayout::kNhwcFloat);
  std::vector<float> planar(nchw.element_count()), packed(nhwc.element_count());
  nchw.run(frame, planar);
  nhwc.run(frame, packed);
  std::size_t planar_bad = 0, packed_bad = 0;
  for (std::size_t i = 0; i < hw; ++i) {
    for (std::size_t c = 0; c < 3; ++c) {
      const float want = static_cast<float>(rgb.data[i * 3 + c]) / 255.0f;
      planar_bad += planar[c * hw + i] != want;
      packed_bad += packed[i * 3 + c] != want;
    }
  }
  EXPECT_EQ(planar_bad, 0u) << what << ": NCHW float values differing from png/255";
  EXPECT_EQ(packed_bad, 0u) << what << ": NHWC float values differing from png/255";
}

TEST(Letterbox, ReproducesEveryGoldenInputBitForBit) {
  YOLO_REQUIRE_FIXTURES();
  const auto cases = test::golden_cases();
  ASSERT_EQ(cases.size(), 12u);
  for (const auto& c : cases) {
    const cv::Mat frame = cv::imread(c.image.string(), cv::IMREAD_COLOR);
    const cv::Mat golden = cv::imread(c.input_png.string(), cv::IMREAD_COLOR);
    ASSERT_FALSE(frame.empty()) << c.image;
    ASSERT_EQ(golden.size(), cv::Size(c.size, c.size)) << c.name;

    const auto t = LetterboxTransform::compute(frame.size(), {c.size, c.size});
    EXPECT_DOUBLE_EQ(t.scale, c.scale) << c.name;
    EXPECT_EQ(t.pad_left, c.pad_left) << c.name;
    EXPECT_EQ(t.pad_top, c.pad_top) << c.name;
    expect_all_layouts(frame, golden, c.name);
  }
}

TEST(Letterbox, NonSquareInputsMatchTheReference) {
  YOLO_REQUIRE_FIXTURES();
  for (const char* image : {"dog.jpg", "person.jpg", "kite.jpg", "eagle.jpg"}) {
    const cv::Mat frame = cv::imread((test::fixtures_dir() / "images" / image).string());
    ASSERT_FALSE(frame.empty()) << image;
    for (const cv::Size input : {cv::Size(640, 384), cv::Size(320, 480), cv::Size(641, 333)}) {
      expect_all_layouts(frame, reference_letterbox(frame, input),
                         std::string(image) + " at " + std::to_string(input.width) + "x" +
                             std::to_string(input.height));
    }
  }
}

TEST(Letterbox, OddPaddingFollowsUltralyticsRounding) {
  // 100x37 into 64x64: resized 64x24 (23.68 rounds up), 40 rows of padding, 20 above, 20 below.
  auto t = LetterboxTransform::compute({100, 37}, {64, 64});
  EXPECT_EQ(t.resized, cv::Size(64, 24));
  EXPECT_EQ(t.pad_top, 20);
  // 100x39 into 64x64: resized 64x25, 39 rows of padding: top = round(19.5 - 0.1) = 19.
  t = LetterboxTransform::compute({100, 39}, {64, 64});
  EXPECT_EQ(t.resized, cv::Size(64, 25));
  EXPECT_EQ(t.pad_top, 19);
  EXPECT_EQ(t.pad_left, 0);
  const cv::Mat frame(39, 100, CV_8UC3, cv::Scalar(10, 20, 30));
  expect_all_layouts(frame, reference_letterbox(frame, {64, 64}), "100x39");
}

TEST(Letterbox, MapsBoxesBackToTheFrameAndClips) {
  const auto t = LetterboxTransform::compute({768, 576}, {640, 640});
  ASSERT_EQ(t.pad_top, 80);
  const Box b = t.to_frame({100, 180, 200, 280});
  EXPECT_NEAR(b.x1, 120.0f, 1e-3);
  EXPECT_NEAR(b.y1, 120.0f, 1e-3);
  EXPECT_NEAR(b.x2, 240.0f, 1e-3);
  EXPECT_NEAR(b.y2, 240.0f, 1e-3);
  const Box clipped = t.to_frame({-20, 10, 700, 630});
  EXPECT_EQ(clipped.x1, 0.0f);
  EXPECT_EQ(clipped.y1, 0.0f);
  EXPECT_EQ(clipped.x2, 768.0f);
  EXPECT_EQ(clipped.y2, 576.0f);
}

// Dither moves each pixel of the letterbox (image and padding) by at most one grey level, the same
// in its three channels, by a fixed pattern with each step about a third of the time; the float
// layouts carry the same steps / 255; it saturates at 0 and 255, and is off by default.
TEST(Letterbox, DitherMovesEachPixelByAtMostOneGreyLevel) {
  const cv::Size input(64, 64);
  cv::Mat frame(30, 60, CV_8UC3);
  for (int y = 0; y < frame.rows; ++y) {
    for (int x = 0; x < frame.cols; ++x) {
      frame.at<cv::Vec3b>(y, x) = cv::Vec3b(static_cast<std::uint8_t>(x < 10 ? 0 : 4 * x),
                                            static_cast<std::uint8_t>(x > 50 ? 255 : 7 * y),
                                            static_cast<std::uint8_t>(100));
    }
  }
  Letterboxer plain(input, TensorLayout::kNhwcUint8);
  Letterboxer dithered(input, TensorLayout::kNhwcUint8);
  dithered.set_dither(true);
  std::vector<std::uint8_t> a(plain.element_count()), b(a.size()), again(a.size());
  plain.run(frame, a);
  dithered.run(frame, b);
  dithered.run(frame, again);
  EXPECT_EQ(b, again) << "the pattern is the same every frame";
  int steps[3] = {0, 0, 0};
  for (int y = 0; y < input.height; ++y) {
    for (int x = 0; x < input.width; ++x) {
      const int step = dither_step(x, y);
      ASSERT_GE(step, -1);
      ASSERT_LE(step, 1);
      ++steps[step + 1];
      for (int c = 0; c < 3; ++c) {
        const std::size_t i = static_cast<std::size_t>((y * input.width + x) * 3 + c);
        EXPECT_EQ(int(b[i]), std::clamp(int(a[i]) + step, 0, 255)) << x << "," << y << "," << c;
      }
    }
  }
  for (const int n : steps) EXPECT_NEAR(n, input.area() / 3.0, input.area() * 0.05);

  Letterboxer planar(input, TensorLayout::kNchwFloat);
  planar.set_dither(true);
  std::vector<float> f(planar.element_count());
  planar.run(frame, f);
  const std::size_t hw = static_cast<std::size_t>(input.area());
  for (std::size_t i = 0; i < hw; ++i) {
    for (std::size_t c = 0; c < 3; ++c) {
      EXPECT_NEAR(f[c * hw + i], b[i * 3 + c] / 255.0f, 1e-6f);
    }
  }
  EXPECT_NE(a, b);
}

TEST(Letterbox, RejectsWrongBuffersAndFrames) {
  Letterboxer floats({64, 48}, TensorLayout::kNchwFloat);
  const cv::Mat frame(30, 40, CV_8UC3, cv::Scalar::all(0));
  std::vector<float> small(10);
  EXPECT_THROW(floats.run(frame, small), std::invalid_argument);
  std::vector<std::uint8_t> bytes(floats.element_count());
  EXPECT_THROW(floats.run(frame, bytes), std::invalid_argument);
  std::vector<float> right(floats.element_count());
  EXPECT_THROW(floats.run(cv::Mat(), right), std::invalid_argument);
  EXPECT_THROW(floats.run(cv::Mat(30, 40, CV_8UC1, cv::Scalar(0)), right), std::invalid_argument);
  EXPECT_THROW(Letterboxer({0, 10}, TensorLayout::kNhwcUint8), std::invalid_argument);
  const auto t = floats.run(frame, right);
  EXPECT_EQ(t.input, cv::Size(64, 48));
  EXPECT_EQ(t.resized, cv::Size(64, 48));
}

}  // namespace
}  // namespace yolo::vision
