// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <vector>

#include <opencv2/core.hpp>

#include "vision/detection.h"

namespace yolo::vision {

// How a camera's motion is found: a small grey copy of each frame is compared with a running
// average of the past frames (the background); pixels that differ by more than `threshold` are
// motion, and each blob of them big enough is one motion box. The defaults suit a fixed outdoor
// camera at 5 to 30 frames per second; the config's motion section will override them per camera.
struct MotionSettings {
  // Width of the grey copy in pixels (the height follows the frame's aspect; a frame narrower than
  // this is used at its own width). Shrinking averages sensor noise away and makes the rest cheap:
  // at 320 a 1280x720 frame takes ~0.7 ms (x86, one core), most of it the grey conversion and the
  // shrink, and an object 20 px tall in 1280x720 is still 5 px.
  int width = 320;
  // Grey levels (1..255) a pixel must differ from the background by to count as moved. 40 sits far
  // above the noise of a shrunken, blurred camera frame (~2-4 levels) and below the contrast of a
  // person or car against a road; on the traffic fixture at 5 fps, 30 let the shimmer of the road
  // and the sway of the view join the cars' blobs into crops that covered the frame.
  int threshold = 40;
  // Smallest blob that counts, as a fraction of the frame's area, so it means the same at every
  // resolution: 0.0005 is ~29 px of the 320x180 copy, a 21x21 px object in 1280x720; leaves,
  // rain and single noisy pixels stay below it.
  double min_area = 0.0005;
  // Weight of each new frame in the background (0..1], so it is per frame: the background follows
  // a change in ~1/rate frames (2 s at 5 fps for 0.1). A trade: slower leaves a camera that sways
  // or a drifting view moving everywhere (on the 30 fps road clip read at 5 fps, 25% of the frame
  // "moved" at 0.02, 9% at 0.1, so motion crops ran on 6 of 56 frames at 0.02 and 34 at 0.1),
  // faster absorbs an object that stops sooner (0.1: a parked car after ~10 frames), which the
  // motion gate keeps by its last box until the next whole-frame pass anyway.
  double learning_rate = 0.1;
  // When more than this fraction (0..1] of the unmasked frame moved at once, it was the light or
  // the exposure, not an object (lights on, IR switching, a cloud): the background restarts from
  // this frame and the result says so instead of reporting one huge motion box.
  double whole_frame_fraction = 0.8;
  // Polygons whose pixels never count as motion (a timestamp, a tree, the sky), each point
  // {x, y} a fraction [0, 1] of the frame's width and height, at least three points each.
  std::vector<std::vector<cv::Point2f>> masks;

  bool operator==(const MotionSettings&) const = default;
};

// What detect() found in one frame.
struct MotionResult {
  // Each moving blob's bounding box in the full frame's pixels.
  std::vector<Box> boxes;
  // The fraction of the unmasked frame that moved (0..1).
  double moved_fraction = 0;
  // The background (re)started from this frame: the first frame, or the frame size changed. No
  // motion is reported then.
  bool started = false;
  // Most of the frame changed at once (see MotionSettings::whole_frame_fraction): the background
  // restarted from this frame and `boxes` is empty.
  bool whole_frame_change = false;
  // Time detect() took, in milliseconds.
  double ms = 0;
};

// Frame-differencing motion detector for one camera. Keeps the background and its work images
// between frames, so a steady stream of same-sized frames allocates nothing beyond the result's
// boxes and OpenCV's contour search. Not thread-safe: one detector per camera, called from one
// thread.
class MotionDetector {
 public:
  // Throws std::invalid_argument on a setting out of range (e.g. width < 16, a mask point outside
  // 0..1).
  explicit MotionDetector(MotionSettings settings);

  // Finds motion in a BGR frame (8-bit, three channels; throws std::invalid_argument otherwise)
  // and learns the frame into the background.
  MotionResult detect(const cv::Mat& bgr);

 private:
  // Sizes the grey copy and draws the mask for frames of size `frame`.
  void start(cv::Size frame);

  MotionSettings settings_;
  // The frame size the background was started for, and the size of the grey copy.
  cv::Size frame_, small_size_;
  // The frame in grey at full size, then shrunk and blurred.
  cv::Mat grey_, small_;
  // Running average of the small grey frames (float), and it rounded to 8 bits for the difference.
  cv::Mat background_, background8_;
  // Absolute difference, then moved pixels (255) after threshold and dilation.
  cv::Mat diff_, moved_;
  // 255 where the masks cover the small frame; empty when there are no masks.
  cv::Mat mask_;
  int unmasked_pixels_ = 0;
  std::vector<std::vector<cv::Point>> contours_;
};

}  // namespace yolo::vision
