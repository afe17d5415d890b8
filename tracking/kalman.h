// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <Eigen/Core>

#include "vision/detection.h"

namespace yolo::tracking {

// A constant-velocity Kalman filter on one box, as ByteTrack and DeepSORT keep it: the state is
// the centre (cx, cy), the aspect ratio a = w / h and the height h, and their rates of change. The
// step is in seconds, not frames: the frame rate changes with precision and threads, and a frame
// late by 100 ms must move the box further than one on time.
class BoxFilter {
 public:
  using State = Eigen::Matrix<float, 8, 1>;
  using Covariance = Eigen::Matrix<float, 8, 8>;

  explicit BoxFilter(const vision::Box& box);

  // Moves the estimate `dt` seconds on.
  void predict(float dt);
  // Corrects it with a measured box.
  void update(const vision::Box& box);

  // The estimate as a box (frame pixels).
  vision::Box box() const;
  // Velocity of the centre, pixels per second.
  float vx() const { return x_(4); }
  float vy() const { return x_(5); }

 private:
  State x_;
  Covariance p_;
};

}  // namespace yolo::tracking
