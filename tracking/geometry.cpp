// SPDX-License-Identifier: Apache-2.0
#include "tracking/geometry.h"

#include <algorithm>
#include <cmath>

namespace yolo::tracking {

namespace {

float cross(cv::Point2f o, cv::Point2f a, cv::Point2f b) {
  return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

bool on_segment(cv::Point2f a, cv::Point2f b, cv::Point2f p) {
  return std::min(a.x, b.x) <= p.x && p.x <= std::max(a.x, b.x) && std::min(a.y, b.y) <= p.y &&
         p.y <= std::max(a.y, b.y);
}

}  // namespace

cv::Point2f place(const config::FramePoint& p, cv::Size size) {
  return {static_cast<float>(p.x * size.width), static_cast<float>(p.y * size.height)};
}

cv::Point2f anchor_point(const vision::Box& b, Anchor anchor) {
  const float x = (b.x1 + b.x2) / 2;
  switch (anchor) {
    case Anchor::kBottomCenter:
      return {x, b.y2};
    case Anchor::kCenter:
      return {x, (b.y1 + b.y2) / 2};
    case Anchor::kTopCenter:
      return {x, b.y1};
  }
  return {x, b.y2};
}

bool inside(const std::vector<cv::Point2f>& polygon, cv::Point2f p) {
  bool in = false;
  const std::size_t n = polygon.size();
  for (std::size_t i = 0, j = n - 1; i < n; j = i++) {
    const cv::Point2f a = polygon[i];
    const cv::Point2f b = polygon[j];
    if (cross(a, b, p) == 0 && on_segment(a, b, p)) return true;
    if ((a.y > p.y) != (b.y > p.y) && p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x) {
      in = !in;
    }
  }
  return in;
}

bool segments_meet(cv::Point2f a, cv::Point2f b, cv::Point2f c, cv::Point2f d) {
  const float d1 = cross(c, d, a);
  const float d2 = cross(c, d, b);
  const float d3 = cross(a, b, c);
  const float d4 = cross(a, b, d);
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) {
    return true;
  }
  return (d1 == 0 && on_segment(c, d, a)) || (d2 == 0 && on_segment(c, d, b)) ||
         (d3 == 0 && on_segment(a, b, c)) || (d4 == 0 && on_segment(a, b, d));
}

PlacedLine::PlacedLine(cv::Point2f from, cv::Point2f to, Side in, float margin)
    : from_(from), to_(to), length_(std::hypot(to.x - from.x, to.y - from.y)), margin_(margin) {
  // A point one pixel to the named side of the segment's middle (y grows downwards) tells which
  // sign of the cross product is "in". The config refuses above/below on a vertical line and
  // left/right on a horizontal one, where that point would lie on the line.
  const cv::Point2f mid = (from + to) * 0.5f;
  cv::Point2f probe = mid;
  switch (in) {
    case Side::kAbove:
      probe.y -= 1;
      break;
    case Side::kBelow:
      probe.y += 1;
      break;
    case Side::kLeft:
      probe.x -= 1;
      break;
    case Side::kRight:
      probe.x += 1;
      break;
  }
  in_sign_ = cross(from_, to_, probe) >= 0 ? 1.0f : -1.0f;
}

float PlacedLine::distance(cv::Point2f p) const {
  if (length_ <= 0) return 0;
  return in_sign_ * cross(from_, to_, p) / length_;
}

float PlacedLine::along(cv::Point2f p) const {
  if (length_ <= 0) return 0;
  const cv::Point2f d = to_ - from_;
  return ((p.x - from_.x) * d.x + (p.y - from_.y) * d.y) / (length_ * length_);
}

std::optional<bool> PlacedLine::side(cv::Point2f p) const {
  // A zero-length line (the config refuses one) has no sides: it counts nothing.
  if (length_ <= 0) return std::nullopt;
  const float d = distance(p);
  const float slack = margin_ / length_;
  const float a = along(p);
  if (std::abs(d) <= margin_ || a < -slack || a > 1 + slack) return std::nullopt;
  return d > 0;
}

std::optional<Direction> PlacedLine::advance(LineStanding& s, cv::Point2f p) const {
  if (s.last && segments_meet(*s.last, p, from_, to_)) s.met = true;
  s.last = p;
  const std::optional<bool> now = side(p);
  if (!now) return std::nullopt;
  std::optional<Direction> crossed;
  if (s.in_side && *s.in_side != *now && s.met) crossed = *now ? Direction::kIn : Direction::kOut;
  s.in_side = now;
  s.met = false;
  return crossed;
}

}  // namespace yolo::tracking
