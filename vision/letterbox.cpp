// SPDX-License-Identifier: Apache-2.0
#include "vision/letterbox.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

#include <opencv2/imgproc.hpp>

#include "vision/pixel_rows.h"

namespace yolo::vision {
namespace {

constexpr std::uint8_t kPad = 114;

// Python's round(): half to even, which std::nearbyint gives under the default rounding mode.
int py_round(double v) {
  return static_cast<int>(std::nearbyint(v));
}

std::string size_string(cv::Size s) {
  return std::to_string(s.width) + "x" + std::to_string(s.height);
}

}  // namespace

// The name of each layout, in the enum's order.
constexpr std::array<const char*, 3> kLayoutNames{"NCHW float", "NHWC float", "NHWC uint8"};
static_assert(kLayoutNames.size() == static_cast<std::size_t>(TensorLayout::kNhwcUint8) + 1);

const char* layout_name(TensorLayout layout) {
  const auto i = static_cast<std::size_t>(layout);
  return i < kLayoutNames.size() ? kLayoutNames[i] : "unknown";
}

LetterboxTransform LetterboxTransform::compute(cv::Size frame, cv::Size input) {
  if (frame.width <= 0 || frame.height <= 0)
    throw std::invalid_argument("letterbox: empty frame (" + size_string(frame) + ")");
  if (input.width <= 0 || input.height <= 0)
    throw std::invalid_argument("letterbox: invalid network input size " + size_string(input));
  LetterboxTransform t;
  t.frame = frame;
  t.input = input;
  t.scale = std::min(static_cast<double>(input.height) / frame.height,
                     static_cast<double>(input.width) / frame.width);
  t.resized = {py_round(frame.width * t.scale), py_round(frame.height * t.scale)};
  const double dw = (input.width - t.resized.width) / 2.0;
  const double dh = (input.height - t.resized.height) / 2.0;
  t.pad_left = py_round(dw - 0.1);
  t.pad_top = py_round(dh - 0.1);
  return t;
}

Box LetterboxTransform::to_frame(const Box& b) const {
  const auto fx = [&](float x) {
    return std::clamp(static_cast<float>((x - pad_left) / scale), 0.0f,
                      static_cast<float>(frame.width));
  };
  const auto fy = [&](float y) {
    return std::clamp(static_cast<float>((y - pad_top) / scale), 0.0f,
                      static_cast<float>(frame.height));
  };
  return {fx(b.x1), fy(b.y1), fx(b.x2), fy(b.y2)};
}

int dither_step(int x, int y) {
  // A multiplicative hash of the position: no structure a convolution could pick up, the same
  // every run.
  std::uint32_t h =
      (static_cast<std::uint32_t>(x) * 73856093U) ^ (static_cast<std::uint32_t>(y) * 19349663U);
  h *= 2654435761U;
  return static_cast<int>((h >> 16) % 3) - 1;
}

Letterboxer::Letterboxer(cv::Size input, TensorLayout layout) : input_(input), layout_(layout) {
  if (input.width <= 0 || input.height <= 0)
    throw std::invalid_argument("letterbox: invalid network input size " + size_string(input));
}

std::size_t Letterboxer::element_count() const {
  return 3u * static_cast<std::size_t>(input_.width) * static_cast<std::size_t>(input_.height);
}

LetterboxTransform Letterboxer::prepare(const cv::Mat& bgr, std::size_t dst_size,
                                        bool want_float) const {
  if (bgr.empty()) throw std::invalid_argument("letterbox: empty frame");
  if (bgr.type() != CV_8UC3)
    throw std::invalid_argument("letterbox: frame must be 8-bit BGR (CV_8UC3), got type " +
                                std::to_string(bgr.type()));
  const bool layout_is_float = layout_ != TensorLayout::kNhwcUint8;
  if (want_float != layout_is_float)
    throw std::invalid_argument(std::string("letterbox: a ") + (want_float ? "float" : "uint8") +
                                " buffer was given for the " + layout_name(layout_) + " layout");
  if (dst_size != element_count())
    throw std::invalid_argument("letterbox: destination holds " + std::to_string(dst_size) +
                                " elements, the " + size_string(input_) + " input needs " +
                                std::to_string(element_count()));
  return LetterboxTransform::compute(bgr.size(), input_);
}

LetterboxTransform Letterboxer::run(const cv::Mat& bgr, std::span<std::uint8_t> dst) {
  const LetterboxTransform t = prepare(bgr, dst.size(), false);
  // The destination is the canvas: fill the borders, resize into the middle, swap to RGB in place.
  cv::Mat canvas(input_, CV_8UC3, dst.data());
  const cv::Rect roi(cv::Point(t.pad_left, t.pad_top), t.resized);
  const cv::Scalar grey(kPad, kPad, kPad);
  canvas.rowRange(0, roi.y).setTo(grey);
  canvas.rowRange(roi.y + roi.height, input_.height).setTo(grey);
  canvas(cv::Rect(0, roi.y, roi.x, roi.height)).setTo(grey);
  canvas(cv::Rect(roi.x + roi.width, roi.y, input_.width - roi.x - roi.width, roi.height))
      .setTo(grey);
  cv::Mat inner = canvas(roi);
  cv::resize(bgr, inner, t.resized, 0, 0, cv::INTER_LINEAR);
  cv::cvtColor(inner, inner, cv::COLOR_BGR2RGB);
  if (dither_) {
    for (int y = 0; y < input_.height; ++y) {
      auto* row = canvas.ptr<std::uint8_t>(y);
      for (int x = 0; x < input_.width; ++x) {
        const int step = dither_step(x, y);
        for (int c = 0; c < 3; ++c) {
          std::uint8_t& v = row[x * 3 + c];
          v = static_cast<std::uint8_t>(std::clamp(v + step, 0, 255));
        }
      }
    }
  }
  return t;
}

LetterboxTransform Letterboxer::run(const cv::Mat& bgr, std::span<float> dst) {
  const LetterboxTransform t = prepare(bgr, dst.size(), true);
  // Resizing in uint8 first is what makes the result equal Ultralytics' (and the golden PNGs);
  // the conversion to float, the channel swap, the layout and the padding are then one pass.
  const cv::Mat* src = &bgr;
  if (t.resized != bgr.size()) {
    cv::resize(bgr, resized_, t.resized, 0, 0, cv::INTER_LINEAR);
    src = &resized_;
  }
  // kPad / 255 in float32, as vision/pixel_rows.h computes every value.
  const float pad = static_cast<float>(kPad) / 255.0f;
  const int w = input_.width;
  const int h = input_.height;
  const int x0 = t.pad_left;
  const int x1 = t.pad_left + t.resized.width;
  const int y0 = t.pad_top;
  const int y1 = t.pad_top + t.resized.height;
  float* out = dst.data();
  if (layout_ == TensorLayout::kNchwFloat) {
    const std::size_t plane = static_cast<std::size_t>(w) * h;
    for (int y = 0; y < h; ++y) {
      float* r = out + static_cast<std::size_t>(y) * w;
      float* g = r + plane;
      float* b = g + plane;
      if (y < y0 || y >= y1) {
        std::fill(r, r + w, pad);
        std::fill(g, g + w, pad);
        std::fill(b, b + w, pad);
        continue;
      }
      const std::uint8_t* px = src->ptr<std::uint8_t>(y - y0);
      for (int x = 0; x < x0; ++x) r[x] = g[x] = b[x] = pad;
      bgr_to_planar_unit(px, r + x0, g + x0, b + x0, static_cast<std::size_t>(x1 - x0));
      for (int x = x1; x < w; ++x) r[x] = g[x] = b[x] = pad;
    }
  } else {
    for (int y = 0; y < h; ++y) {
      float* row = out + static_cast<std::size_t>(y) * w * 3;
      if (y < y0 || y >= y1) {
        std::fill(row, row + static_cast<std::size_t>(w) * 3, pad);
        continue;
      }
      const std::uint8_t* px = src->ptr<std::uint8_t>(y - y0);
      std::fill(row, row + static_cast<std::size_t>(x0) * 3, pad);
      bgr_to_rgb_unit(px, row + static_cast<std::size_t>(x0) * 3,
                      static_cast<std::size_t>(x1 - x0));
      std::fill(row + static_cast<std::size_t>(x1) * 3, row + static_cast<std::size_t>(w) * 3, pad);
    }
  }
  if (dither_) {
    // Float inputs are whole grey levels / 255, so the step is too.
    const std::size_t plane = static_cast<std::size_t>(w) * h;
    const bool planar = layout_ == TensorLayout::kNchwFloat;
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        const float step = static_cast<float>(dither_step(x, y)) / 255.0f;
        const std::size_t i = static_cast<std::size_t>(y) * w + x;
        for (std::size_t c = 0; c < 3; ++c) {
          float& v = planar ? out[i + c * plane] : out[i * 3 + c];
          v = std::clamp(v + step, 0.0f, 1.0f);
        }
      }
    }
  }
  return t;
}

}  // namespace yolo::vision
