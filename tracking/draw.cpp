// SPDX-License-Identifier: Apache-2.0
#include "tracking/draw.h"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "tracking/geometry.h"
#include "vision/annotate.h"

namespace yolo::tracking {

namespace {

// Zones and lines in one colour apart from the classes' palette.
const cv::Scalar kPlaceColor(255, 200, 0);
// How much of the zone's colour shows over the frame.
constexpr double kZoneFill = 0.18;

Tally sum(const Counts& counts, const std::string& name, bool line) {
  Tally t;
  for (const PlaceCounts& p : counts.places) {
    if (p.name != name || p.line != line) continue;
    for (const auto& [label, tally] : p.total) {
      t.in += tally.in;
      t.out += tally.out;
    }
  }
  return t;
}

cv::Point rounded(cv::Point2f p) {
  return {static_cast<int>(std::lround(p.x)), static_cast<int>(std::lround(p.y))};
}

}  // namespace

void draw_scene(cv::Mat& bgr, const SceneDrawing& scene) {
  if (bgr.empty()) return;
  const cv::Size size = bgr.size();
  const int lw = std::max(1, vision::line_width(bgr) - 1);
  for (const config::ZoneConfig& z : scene.zones) {
    std::vector<cv::Point> polygon;
    for (const auto& p : z.points) polygon.push_back(rounded(place(p, size)));
    if (polygon.size() < 3) continue;
    // A light fill over the zone's own rectangle only: blending the whole frame would cost a
    // full copy per frame.
    const cv::Rect box = cv::boundingRect(polygon) & cv::Rect(0, 0, size.width, size.height);
    if (box.area() > 0) {
      cv::Mat roi = bgr(box);
      cv::Mat tinted = roi.clone();
      std::vector<cv::Point> shifted;
      for (const cv::Point& p : polygon) shifted.push_back(p - box.tl());
      cv::fillPoly(tinted, std::vector<std::vector<cv::Point>>{shifted}, kPlaceColor, cv::LINE_AA);
      cv::addWeighted(tinted, kZoneFill, roi, 1 - kZoneFill, 0, roi);
    }
    cv::polylines(bgr, polygon, true, kPlaceColor, lw, cv::LINE_AA);
    const auto here = scene.occupancy.find(z.name);
    const Tally t = sum(scene.counts, z.name, false);
    const std::string text = z.name + ": " +
                             std::to_string(here == scene.occupancy.end() ? 0 : here->second) +
                             " here, " + std::to_string(t.in) + " in";
    const auto top = std::min_element(polygon.begin(), polygon.end(),
                                      [](cv::Point a, cv::Point b) { return a.y < b.y; });
    vision::draw_tag(bgr, text, *top, kPlaceColor, 0.8);
  }
  for (const config::LineConfig& l : scene.lines) {
    const cv::Point2f a = place(l.from, size);
    const cv::Point2f b = place(l.to, size);
    cv::line(bgr, rounded(a), rounded(b), kPlaceColor, lw + 1, cv::LINE_AA);
    // An arrow from the middle into the in side.
    const PlacedLine line(a, b, l.in);
    const cv::Point2f mid = (a + b) * 0.5f;
    cv::Point2f normal(-(b.y - a.y), b.x - a.x);
    const float length = std::hypot(normal.x, normal.y);
    if (length > 0) {
      normal *= 1.0f / length;
      if (line.distance(mid + normal) < 0) normal = -normal;
      const float arrow = static_cast<float>(std::max(size.width, size.height)) * 0.04f;
      cv::arrowedLine(bgr, rounded(mid), rounded(mid + normal * arrow), kPlaceColor, lw,
                      cv::LINE_AA, 0, 0.3);
    }
    const Tally t = sum(scene.counts, l.name, true);
    const std::string text =
        l.name + ": in " + std::to_string(t.in) + " / out " + std::to_string(t.out);
    vision::draw_tag(bgr, text, rounded(a.x <= b.x ? a : b) + cv::Point(0, 2 * lw), kPlaceColor,
                     0.8);
  }
  for (const Track& t : scene.tracks) {
    const cv::Scalar color = vision::class_color(t.class_id);
    if (t.trail.size() >= 2) {
      std::vector<cv::Point> trail;
      for (const cv::Point2f& p : t.trail) trail.push_back(rounded(p));
      cv::polylines(bgr, trail, false, color, lw, cv::LINE_AA);
    }
    // A thin box of its own: annotate() draws only the detections above the shown score, so a
    // track predicted through a miss, or kept by a low-score box, would have none.
    cv::rectangle(bgr, rounded({t.box.x1, t.box.y1}), rounded({t.box.x2, t.box.y2}), color, 1,
                  cv::LINE_AA);
    // Just below the box's bottom-left corner: the class label sits on or above its top edge.
    std::string id = std::to_string(t.id);
    id.insert(id.begin(), '#');
    vision::draw_tag(bgr, id, {static_cast<int>(t.box.x1), static_cast<int>(t.box.y2) + 1}, color,
                     0.7);
  }
}

}  // namespace yolo::tracking
