// SPDX-License-Identifier: Apache-2.0
#include "vision/motion.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include <opencv2/imgproc.hpp>

namespace yolo::vision {
namespace {

using Clock = std::chrono::steady_clock;

void check(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("motion: " + what);
}

void validate(const MotionSettings& s) {
  check(s.width >= 16, "width " + std::to_string(s.width) + " is below 16 px");
  check(s.threshold >= 1 && s.threshold <= 255,
        "threshold " + std::to_string(s.threshold) + " is outside 1..255");
  check(s.min_area >= 0 && s.min_area < 1,
        "min_area " + std::to_string(s.min_area) + " is outside [0, 1)");
  check(s.learning_rate > 0 && s.learning_rate <= 1,
        "learning_rate " + std::to_string(s.learning_rate) + " is outside (0, 1]");
  check(s.whole_frame_fraction > 0 && s.whole_frame_fraction <= 1,
        "whole_frame_fraction " + std::to_string(s.whole_frame_fraction) + " is outside (0, 1]");
  for (std::size_t i = 0; i < s.masks.size(); ++i) {
    const std::string mask = "mask " + std::to_string(i + 1);
    check(s.masks[i].size() >= 3, mask + " has fewer than 3 points");
    for (const cv::Point2f& p : s.masks[i]) {
      // Written so that NaN fails too.
      check(p.x >= 0 && p.x <= 1 && p.y >= 0 && p.y <= 1,
            mask + " has the point (" + std::to_string(p.x) + ", " + std::to_string(p.y) +
                ") outside 0..1");
    }
  }
}

}  // namespace

MotionDetector::MotionDetector(MotionSettings settings) : settings_(std::move(settings)) {
  validate(settings_);
}

void MotionDetector::start(cv::Size frame) {
  frame_ = frame;
  const int width = std::min(settings_.width, frame.width);
  const int height = std::max(
      1, static_cast<int>(std::lround(static_cast<double>(width) * frame.height / frame.width)));
  small_size_ = cv::Size(width, height);
  mask_.release();
  unmasked_pixels_ = width * height;
  if (!settings_.masks.empty()) {
    mask_ = cv::Mat::zeros(small_size_, CV_8UC1);
    std::vector<std::vector<cv::Point>> polygons;
    for (const auto& polygon : settings_.masks) {
      auto& points = polygons.emplace_back();
      for (const cv::Point2f& p : polygon)
        points.emplace_back(static_cast<int>(std::lround(p.x * width)),
                            static_cast<int>(std::lround(p.y * height)));
    }
    cv::fillPoly(mask_, polygons, cv::Scalar(255));
    unmasked_pixels_ -= cv::countNonZero(mask_);
  }
}

MotionResult MotionDetector::detect(const cv::Mat& bgr) {
  const auto t0 = Clock::now();
  if (bgr.empty() || bgr.type() != CV_8UC3)
    throw std::invalid_argument("motion: the frame must be 8-bit BGR, three channels");
  MotionResult result;
  const bool restart = bgr.size() != frame_;
  if (restart) start(bgr.size());

  cv::cvtColor(bgr, grey_, cv::COLOR_BGR2GRAY);
  cv::resize(grey_, small_, small_size_, 0, 0, cv::INTER_AREA);
  // A 3x3 blur takes off what noise the shrinking left (none when the frame is 320 px already):
  // without it, noise of sigma 16 at 320x180 moved pixels in a fifth of the frames.
  cv::GaussianBlur(small_, small_, cv::Size(3, 3), 0);

  const auto finish = [&] {
    result.ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    return result;
  };
  if (restart) {
    small_.convertTo(background_, CV_32F);
    result.started = true;
    return finish();
  }

  background_.convertTo(background8_, CV_8U);
  cv::absdiff(small_, background8_, diff_);
  cv::threshold(diff_, moved_, settings_.threshold, 255, cv::THRESH_BINARY);
  // Joins the pieces of one object (a car's windows differ less than its body) into one blob.
  cv::dilate(moved_, moved_, cv::Mat());
  if (!mask_.empty()) moved_.setTo(0, mask_);
  result.moved_fraction =
      unmasked_pixels_ > 0 ? static_cast<double>(cv::countNonZero(moved_)) / unmasked_pixels_ : 0;

  if (result.moved_fraction > settings_.whole_frame_fraction) {
    small_.convertTo(background_, CV_32F);
    result.whole_frame_change = true;
    return finish();
  }

  cv::findContours(moved_, contours_, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_SIMPLE);
  const double min_area = settings_.min_area * static_cast<double>(small_.total());
  const float sx = static_cast<float>(frame_.width) / static_cast<float>(small_.cols);
  const float sy = static_cast<float>(frame_.height) / static_cast<float>(small_.rows);
  for (const auto& contour : contours_) {
    if (cv::contourArea(contour) < min_area) continue;
    const cv::Rect r = cv::boundingRect(contour);
    result.boxes.push_back({static_cast<float>(r.x) * sx, static_cast<float>(r.y) * sy,
                            static_cast<float>(r.x + r.width) * sx,
                            static_cast<float>(r.y + r.height) * sy});
  }
  cv::accumulateWeighted(small_, background_, settings_.learning_rate);
  return finish();
}

}  // namespace yolo::vision
