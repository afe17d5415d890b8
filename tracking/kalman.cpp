// SPDX-License-Identifier: Apache-2.0
#include "tracking/kalman.h"

#include <Eigen/Cholesky>
#include <algorithm>

namespace yolo::tracking {

namespace {

// DeepSORT's noise, scaled by the box height: a position standard deviation of 1/20 of h and a
// velocity one of 1/160 of h per frame at about 30 fps, here per second (x30), so a step of 1/30 s
// adds what a frame did there.
constexpr float kPositionStd = 1.0f / 20;
constexpr float kVelocityStd = 1.0f / 160 * 30;
// The aspect ratio hardly changes and is measured well.
constexpr float kAspectStd = 1e-2f;
constexpr float kAspectRateStd = 1e-4f * 30;

Eigen::Vector4f measure(const vision::Box& b) {
  const float h = std::max(b.height(), 1e-3f);
  return {(b.x1 + b.x2) / 2, (b.y1 + b.y2) / 2, b.width() / h, h};
}

}  // namespace

BoxFilter::BoxFilter(const vision::Box& box) {
  const Eigen::Vector4f z = measure(box);
  x_.setZero();
  x_.head<4>() = z;
  const float h = z(3);
  Eigen::Matrix<float, 8, 1> std;
  std << 2 * kPositionStd * h, 2 * kPositionStd * h, 1e-2f, 2 * kPositionStd * h,
      10 * kVelocityStd * h, 10 * kVelocityStd * h, 1e-5f, 10 * kVelocityStd * h;
  p_ = std.array().square().matrix().asDiagonal();
}

void BoxFilter::predict(float dt) {
  if (dt <= 0) return;
  Eigen::Matrix<float, 8, 8> f = Eigen::Matrix<float, 8, 8>::Identity();
  for (int i = 0; i < 4; ++i) f(i, i + 4) = dt;
  const float h = x_(3);
  Eigen::Matrix<float, 8, 1> std;
  std << kPositionStd * h, kPositionStd * h, kAspectStd, kPositionStd * h, kVelocityStd * h,
      kVelocityStd * h, kAspectRateStd, kVelocityStd * h;
  // The variance added grows linearly with the step (each state drifts as a random walk), so ten
  // steps of 0.01 s add about what one of 0.1 s does: the frame rate hardly changes the filter.
  const Eigen::Matrix<float, 8, 1> q = std.array().square() * dt * 30;
  x_ = f * x_;
  p_ = f * p_ * f.transpose();
  p_.diagonal() += q;
}

void BoxFilter::update(const vision::Box& box) {
  const Eigen::Vector4f z = measure(box);
  const float h = x_(3);
  Eigen::Vector4f r;
  r << kPositionStd * h, kPositionStd * h, 1e-1f, kPositionStd * h;
  // H picks the first four states: S = P[0:4, 0:4] + R, K = P[:, 0:4] S^-1.
  Eigen::Matrix4f s = p_.topLeftCorner<4, 4>();
  s.diagonal() += r.array().square().matrix();
  const Eigen::Matrix<float, 8, 4> k =
      s.llt().solve(p_.topRows<4>()).transpose();  // S symmetric: (S^-1 P_top)^T = P_left S^-1
  x_ += k * (z - x_.head<4>());
  p_ -= k * p_.topRows<4>();
}

vision::Box BoxFilter::box() const {
  const float h = std::max(x_(3), 0.0f);
  const float w = std::max(x_(2), 0.0f) * h;
  return {x_(0) - w / 2, x_(1) - h / 2, x_(0) + w / 2, x_(1) + h / 2};
}

}  // namespace yolo::tracking
