// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <span>

#include <opencv2/core.hpp>

#include "vision/detection.h"

namespace yolo::vision {

// How the network wants its input: RGB order in every case; float layouts are scaled to 0..1
// (value / 255), the uint8 layout keeps 0..255 for models that quantize from the image directly.
enum class TensorLayout { kNchwFloat, kNhwcFloat, kNhwcUint8 };

const char* layout_name(TensorLayout layout);

// The geometry of one Ultralytics letterbox: the frame scaled by `scale` to `resized`, placed at
// (pad_left, pad_top) in an `input`-sized canvas padded with grey 114.
struct LetterboxTransform {
  cv::Size frame;
  cv::Size input;
  cv::Size resized;
  double scale = 1.0;
  int pad_left = 0;
  int pad_top = 0;

  // r = min(H/h, W/w); resized = (round(w r), round(h r)); top = round(dh - 0.1),
  // left = round(dw - 0.1) with dh, dw half the padding, as Ultralytics' LetterBox computes it.
  static LetterboxTransform compute(cv::Size frame, cv::Size input);

  // A box in network-input pixels mapped back to frame pixels and clipped to the frame.
  Box to_frame(const Box& input_box) const;
};

// Letterboxes BGR frames straight into a caller-owned tensor buffer. Keeps one scratch image
// between calls so a steady stream of same-sized frames allocates nothing.
class Letterboxer {
 public:
  Letterboxer(cv::Size input, TensorLayout layout);

  cv::Size input() const { return input_; }
  TensorLayout layout() const { return layout_; }
  // Elements the destination must hold: 3 * width * height.
  std::size_t element_count() const;

  // With `on`, every pixel of the result (padding included) moves by -1, 0 or +1 grey level, the
  // same in its three channels, by a fixed pattern of its position: a change nobody can see, to
  // measure how far a model's own detections move under one (`compare --floor`). Never for
  // detection. Off by default.
  void set_dither(bool on) { dither_ = on; }

  // For kNchwFloat and kNhwcFloat. Throws std::invalid_argument on a layout or size mismatch.
  LetterboxTransform run(const cv::Mat& bgr, std::span<float> dst);
  // For kNhwcUint8. Throws std::invalid_argument on a layout or size mismatch.
  LetterboxTransform run(const cv::Mat& bgr, std::span<std::uint8_t> dst);

 private:
  LetterboxTransform prepare(const cv::Mat& bgr, std::size_t dst_size, bool want_float) const;

  cv::Size input_;
  TensorLayout layout_;
  cv::Mat resized_;
  bool dither_ = false;
};

// The step set_dither() gives the pixel at (x, y): -1, 0 or +1.
int dither_step(int x, int y);

}  // namespace yolo::vision
