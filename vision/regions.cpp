// SPDX-License-Identifier: Apache-2.0
#include "vision/regions.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

namespace yolo::vision {
namespace {

// How far (px) a piece's edge may lie from its crop's edge, and two pieces' edges from each
// other, and still count as cut there: detectors place edges a pixel or two off.
constexpr float kCutTolerance = 2.0f;

// Rules 1 and 2 of plan_regions for the pixels [x1, x2) x [y1, y2), which lie inside the frame.
cv::Rect fit_crop(int x1, int y1, int x2, int y2, cv::Size frame, cv::Size input) {
  const double scale = std::max({1.0, static_cast<double>(x2 - x1) / input.width,
                                 static_cast<double>(y2 - y1) / input.height});
  // The small epsilon keeps an exact fit (scale * input == the box) from rounding one pixel up.
  const int w = std::min(frame.width, static_cast<int>(std::ceil(input.width * scale - 1e-9)));
  const int h = std::min(frame.height, static_cast<int>(std::ceil(input.height * scale - 1e-9)));
  // Floor of the centred corner: with integer box edges and w >= x2 - x1 the crop still reaches x2.
  const int x = static_cast<int>(std::floor((x1 + x2 - w) / 2.0));
  const int y = static_cast<int>(std::floor((y1 + y2 - h) / 2.0));
  return {std::clamp(x, 0, frame.width - w), std::clamp(y, 0, frame.height - h), w, h};
}

cv::Rect fit_crop(const cv::Rect& r, cv::Size frame, cv::Size input) {
  return fit_crop(r.x, r.y, r.x + r.width, r.y + r.height, frame, input);
}

// Whether `a` ends at the right edge of `crop_a` where `b` starts at the left edge of `crop_b`,
// and the two overlap vertically by half the shorter one.
bool cut_left_right(const Box& a, const cv::Rect& crop_a, const Box& b, const cv::Rect& crop_b) {
  const float overlap = std::min(a.y2, b.y2) - std::max(a.y1, b.y1);
  return a.x2 >= static_cast<float>(crop_a.x + crop_a.width) - kCutTolerance &&
         b.x1 <= static_cast<float>(crop_b.x) + kCutTolerance &&
         std::abs(a.x2 - b.x1) <= kCutTolerance &&
         overlap >= 0.5f * std::min(a.height(), b.height());
}

// The same for `a` ending at the bottom edge of `crop_a`, `b` starting at the top of `crop_b`.
bool cut_top_bottom(const Box& a, const cv::Rect& crop_a, const Box& b, const cv::Rect& crop_b) {
  const float overlap = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
  return a.y2 >= static_cast<float>(crop_a.y + crop_a.height) - kCutTolerance &&
         b.y1 <= static_cast<float>(crop_b.y) + kCutTolerance &&
         std::abs(a.y2 - b.y1) <= kCutTolerance && overlap >= 0.5f * std::min(a.width(), b.width());
}

struct Piece {
  Detection detection;
  cv::Rect crop;
};

bool same_object(const Piece& a, const Piece& b) {
  if (a.detection.class_id != b.detection.class_id || a.crop == b.crop) return false;
  const Box& p = a.detection.box;
  const Box& q = b.detection.box;
  return cut_left_right(p, a.crop, q, b.crop) || cut_left_right(q, b.crop, p, a.crop) ||
         cut_top_bottom(p, a.crop, q, b.crop) || cut_top_bottom(q, b.crop, p, a.crop);
}

}  // namespace

RegionPlan plan_regions(std::span<const Box> motion, cv::Size frame, cv::Size input,
                        const RegionOptions& options) {
  if (frame.width <= 0 || frame.height <= 0 || input.width <= 0 || input.height <= 0)
    throw std::invalid_argument("plan_regions: the frame and input sizes must not be empty");
  if (options.max_regions < 0)
    throw std::invalid_argument("plan_regions: max_regions " + std::to_string(options.max_regions) +
                                " is negative");
  RegionPlan plan;
  std::vector<cv::Rect>& crops = plan.regions;
  for (const Box& b : motion) {
    const int x1 = std::clamp(static_cast<int>(std::floor(b.x1)), 0, frame.width);
    const int y1 = std::clamp(static_cast<int>(std::floor(b.y1)), 0, frame.height);
    const int x2 = std::clamp(static_cast<int>(std::ceil(b.x2)), x1, frame.width);
    const int y2 = std::clamp(static_cast<int>(std::ceil(b.y2)), y1, frame.height);
    crops.push_back(fit_crop(x1, y1, x2, y2, frame, input));
  }
  // Each merge removes one crop, so this ends after at most motion.size() - 1 merges.
  for (bool merged = true; merged;) {
    merged = false;
    for (std::size_t i = 0; i < crops.size() && !merged; ++i) {
      for (std::size_t j = i + 1; j < crops.size(); ++j) {
        if ((crops[i] & crops[j]).area() == 0) continue;
        crops[i] = fit_crop(crops[i] | crops[j], frame, input);
        crops.erase(crops.begin() + static_cast<std::ptrdiff_t>(j));
        merged = true;
        break;
      }
    }
  }
  double area = 0;
  for (const cv::Rect& c : crops) area += c.area();
  if (static_cast<int>(crops.size()) > options.max_regions || area >= frame.area()) {
    plan.whole_frame = !crops.empty();
    crops.clear();
  }
  return plan;
}

Box crop_to_frame(const Box& box, const cv::Rect& crop) {
  const auto x = static_cast<float>(crop.x);
  const auto y = static_cast<float>(crop.y);
  return {box.x1 + x, box.y1 + y, box.x2 + x, box.y2 + y};
}

Detections join_region_detections(std::span<const Detections> per_region,
                                  std::span<const cv::Rect> regions,
                                  const NmsOptions& nms_options) {
  if (per_region.size() != regions.size())
    throw std::invalid_argument("join_region_detections: " + std::to_string(per_region.size()) +
                                " detection lists for " + std::to_string(regions.size()) +
                                " regions");
  std::vector<Piece> pieces;
  for (std::size_t i = 0; i < regions.size(); ++i) {
    for (Detection d : per_region[i]) {
      d.box = crop_to_frame(d.box, regions[i]);
      pieces.push_back({d, regions[i]});
    }
  }
  // Joining two pieces can make a piece that meets a third (an object over four crops), so join
  // until nothing changes; each join removes one piece.
  for (bool joined = true; joined;) {
    joined = false;
    for (std::size_t i = 0; i < pieces.size() && !joined; ++i) {
      for (std::size_t j = i + 1; j < pieces.size(); ++j) {
        if (!same_object(pieces[i], pieces[j])) continue;
        Detection& a = pieces[i].detection;
        const Detection& b = pieces[j].detection;
        a.box = {std::min(a.box.x1, b.box.x1), std::min(a.box.y1, b.box.y1),
                 std::max(a.box.x2, b.box.x2), std::max(a.box.y2, b.box.y2)};
        a.score = std::max(a.score, b.score);
        // The joined box spans both crops: its crop is their union for the next comparisons.
        pieces[i].crop |= pieces[j].crop;
        pieces.erase(pieces.begin() + static_cast<std::ptrdiff_t>(j));
        joined = true;
        break;
      }
    }
  }
  Detections out;
  out.reserve(pieces.size());
  for (const Piece& p : pieces) out.push_back(p.detection);
  return nms(std::move(out), nms_options);
}

}  // namespace yolo::vision
