// SPDX-License-Identifier: Apache-2.0
#include "vision/annotate.h"

#include <gtest/gtest.h>

namespace yolo::vision {
namespace {

cv::Vec3b as_pixel(const cv::Scalar& s) {
  return {static_cast<uchar>(s[0]), static_cast<uchar>(s[1]), static_cast<uchar>(s[2])};
}

int count_pixels(const cv::Mat& img, cv::Rect area, const cv::Vec3b& colour) {
  int n = 0;
  const cv::Rect r = area & cv::Rect(0, 0, img.cols, img.rows);
  for (int y = r.y; y < r.y + r.height; ++y)
    for (int x = r.x; x < r.x + r.width; ++x) n += img.at<cv::Vec3b>(y, x) == colour;
  return n;
}

// Pixels in `area` whose three channels all exceed 200: antialiased white text.
int count_bright(const cv::Mat& img, cv::Rect area) {
  int n = 0;
  for (int y = area.y; y < area.y + area.height; ++y) {
    for (int x = area.x; x < area.x + area.width; ++x) {
      const cv::Vec3b p = img.at<cv::Vec3b>(y, x);
      n += p[0] > 200 && p[1] > 200 && p[2] > 200;
    }
  }
  return n;
}

TEST(Annotate, UsesTheUltralyticsPaletteStablyPerClass) {
  EXPECT_EQ(class_color(0), cv::Scalar(0x38, 0x38, 0xFF));  // FF3838 as BGR
  EXPECT_EQ(class_color(5), cv::Scalar(0x0A, 0xF9, 0x48));
  EXPECT_EQ(class_color(20), class_color(0));
  EXPECT_NE(class_color(1), class_color(2));
}

TEST(Annotate, DrawsTheBoxAndLabelWhereTheDetectionIs) {
  cv::Mat img(480, 640, CV_8UC3, cv::Scalar(0, 0, 0));
  const Detection d{16, 0.87f, {200, 150, 400, 350}};
  annotate(img, {d}, ClassNames(std::vector<std::string>(80, "dog")), {3, true, {}});
  const cv::Vec3b colour = as_pixel(class_color(16));
  // The box edges carry the class colour, the inside and far outside stay black.
  EXPECT_EQ(img.at<cv::Vec3b>(250, 200), colour);
  EXPECT_EQ(img.at<cv::Vec3b>(250, 400), colour);
  EXPECT_EQ(img.at<cv::Vec3b>(350, 300), colour);
  EXPECT_EQ(img.at<cv::Vec3b>(250, 300), cv::Vec3b(0, 0, 0));
  EXPECT_EQ(img.at<cv::Vec3b>(450, 600), cv::Vec3b(0, 0, 0));
  // The label band sits just above the box's top-left corner.
  EXPECT_GT(count_pixels(img, {200, 120, 60, 28}, colour), 300);
  EXPECT_EQ(count_pixels(img, {0, 0, 640, 100}, colour), 0);
}

TEST(Annotate, KeepsLabelsInsideTheImage) {
  cv::Mat img(200, 300, CV_8UC3, cv::Scalar(0, 0, 0));
  // A box in the top-right corner: no room above it, and a long label would run off the right.
  const Detection d{0, 0.5f, {280, 0, 300, 20}};
  annotate(img, {d}, ClassNames({"a very long class name"}), {2, true, {}});
  const cv::Vec3b colour = as_pixel(class_color(0));
  // The band was moved left and drawn inside the top edge, ending at the image's right border.
  EXPECT_GT(count_pixels(img, {0, 0, 300, 30}, colour), 1000);
  EXPECT_EQ(img.at<cv::Vec3b>(2, 298), colour);
}

TEST(Annotate, LabelsOfOverlappingDetectionsDoNotCoverEachOther) {
  cv::Mat img(480, 640, CV_8UC3, cv::Scalar(0, 0, 0));
  // Two boxes whose top-left corners nearly meet: both labels would go just above them. The
  // better detection keeps that place; the other's label moves inside its own box's top edge.
  const Detection weaker{1, 0.36f, {210, 152, 380, 300}};
  const Detection better{0, 0.92f, {200, 150, 400, 350}};
  annotate(img, {weaker, better}, ClassNames({"horse", "cow"}), {3, true, {}});
  const cv::Vec3b better_colour = as_pixel(class_color(0));
  const cv::Vec3b weaker_colour = as_pixel(class_color(1));
  const cv::Rect above(200, 122, 90, 26);
  EXPECT_GT(count_pixels(img, above, better_colour), 800);
  EXPECT_EQ(count_pixels(img, above, weaker_colour), 0);
  EXPECT_GT(count_pixels(img, {212, 154, 90, 24}, weaker_colour), 800);
}

TEST(Annotate, LabelsKeepClearOfTheStatusLine) {
  cv::Mat img(480, 640, CV_8UC3, cv::Scalar(0, 0, 0));
  // A box at the top left, under where the status line goes: no room above it, and inside its
  // top edge the status line would hide the label, so the label goes below the box.
  const std::string status = "INT8 yolo26n 2 threads 29.7 fps";
  const cv::Rect band = status_band(img, status);
  ASSERT_GT(band.width, 100);
  EXPECT_EQ(band.y, 0);
  const Detection d{2, 0.32f, {40, 0, 120, 60}};
  AnnotateOptions options{3, true, {band}};
  annotate(img, {d}, ClassNames(std::vector<std::string>(80, "car")), options);
  draw_status(img, status);
  const cv::Vec3b colour = as_pixel(class_color(2));
  EXPECT_GT(count_pixels(img, {40, 64, 60, 20}, colour), 600);
  // Without the area kept clear the label sits inside the top edge, where the band covers it.
  cv::Mat plain(480, 640, CV_8UC3, cv::Scalar(0, 0, 0));
  annotate(plain, {d}, ClassNames(std::vector<std::string>(80, "car")), {3, true, {}});
  EXPECT_EQ(count_pixels(plain, {40, 64, 60, 20}, colour), 0);
  EXPECT_GT(count_pixels(plain, band & cv::Rect(40, 0, 80, 30), colour), 600);
}

TEST(Annotate, DrawsAStatusLineTopLeft) {
  cv::Mat img(240, 320, CV_8UC3, cv::Scalar(0, 200, 0));
  draw_status(img, "INT8 2 threads 14.2 FPS 52C");
  EXPECT_EQ(img.at<cv::Vec3b>(1, 1), cv::Vec3b(32, 32, 32));
  EXPECT_GT(count_bright(img, {0, 0, 320, 20}), 20);
  EXPECT_EQ(img.at<cv::Vec3b>(200, 300), cv::Vec3b(0, 200, 0));
}

}  // namespace
}  // namespace yolo::vision
