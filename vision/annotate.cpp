// SPDX-License-Identifier: Apache-2.0
#include "vision/annotate.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include <opencv2/imgproc.hpp>

namespace yolo::vision {
namespace {

constexpr int kFont = cv::FONT_HERSHEY_SIMPLEX;

int line_width_for(const cv::Mat& img, int requested) {
  if (requested > 0) return requested;
  return std::max(static_cast<int>(std::lround((img.rows + img.cols) / 2.0 * 0.003)), 2);
}

// The filled band a label's text sits on.
struct Band {
  cv::Rect rect;
  int pad = 0;
  int text_height = 0;
};

// The band for `text` with its top-left corner at `anchor`, moved so it stays inside the image.
Band band_at(const cv::Mat& img, const std::string& text, cv::Point anchor, double scale,
             int thickness) {
  int baseline = 0;
  const cv::Size ts = cv::getTextSize(text, kFont, scale, thickness, &baseline);
  const int pad = std::max(2, thickness + 1);
  const int band_w = std::min(ts.width + 2 * pad, img.cols);
  const int band_h = std::min(ts.height + baseline + 2 * pad, img.rows);
  const int x = std::clamp(anchor.x, 0, img.cols - band_w);
  const int y = std::clamp(anchor.y, 0, img.rows - band_h);
  return {cv::Rect(x, y, band_w, band_h), pad, ts.height};
}

void draw_band(cv::Mat& img, const Band& band, const std::string& text, const cv::Scalar& fill,
               const cv::Scalar& ink, double scale, int thickness) {
  cv::rectangle(img, band.rect, fill, cv::FILLED);
  cv::putText(img, text, {band.rect.x + band.pad, band.rect.y + band.pad + band.text_height}, kFont,
              scale, ink, thickness, cv::LINE_AA);
}

// Black or white text, whichever reads better on the colour.
cv::Scalar ink_for(const cv::Scalar& bg) {
  const double luma = 0.114 * bg[0] + 0.587 * bg[1] + 0.299 * bg[2];
  return luma > 150 ? cv::Scalar(0, 0, 0) : cv::Scalar(255, 255, 255);
}

}  // namespace

cv::Scalar class_color(int class_id) {
  // Ultralytics' Colors palette, as RGB hex.
  static constexpr std::array<unsigned, 20> kPalette = {
      0xFF3838, 0xFF9D97, 0xFF701F, 0xFFB21D, 0xCFD231, 0x48F90A, 0x92CC17,
      0x3DDB86, 0x1A9334, 0x00D4BB, 0x2C99A8, 0x00C2FF, 0x344593, 0x6473FF,
      0x0018EC, 0x8438FF, 0x520085, 0xCB38FF, 0xFF95C8, 0xFF37C7};
  const auto n = static_cast<int>(kPalette.size());
  const unsigned rgb = kPalette[static_cast<std::size_t>(((class_id % n) + n) % n)];
  return {static_cast<double>(rgb & 0xFF), static_cast<double>((rgb >> 8) & 0xFF),
          static_cast<double>((rgb >> 16) & 0xFF)};
}

void annotate(cv::Mat& bgr, const Detections& detections, const ClassNames& names,
              const AnnotateOptions& options) {
  if (bgr.empty()) return;
  const int lw = line_width_for(bgr, options.line_width);
  const int text_thickness = std::max(lw - 1, 1);
  const double scale = lw / 3.0;
  struct Placed {
    std::string text;
    cv::Scalar color;
    Band band;
  };
  std::vector<std::size_t> order(detections.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return detections[a].score > detections[b].score;
  });
  std::vector<Placed> placed;
  for (const std::size_t i : order) {
    const Detection& d = detections[i];
    const cv::Scalar color = class_color(d.class_id);
    const cv::Point p1(static_cast<int>(std::lround(d.box.x1)),
                       static_cast<int>(std::lround(d.box.y1)));
    const cv::Point p2(static_cast<int>(std::lround(d.box.x2)),
                       static_cast<int>(std::lround(d.box.y2)));
    cv::rectangle(bgr, p1, p2, color, lw, cv::LINE_AA);

    std::string text = names.name(d.class_id);
    if (options.show_score) {
      char score[16];
      std::snprintf(score, sizeof score, " %.2f", d.score);
      text += score;
    }
    // Above the box, inside its top edge, below it, inside its bottom edge: the first place that
    // covers no label placed before (those of better detections) and no area to keep clear, else
    // the one covering least.
    const int band_h = band_at(bgr, text, p1, scale, text_thickness).rect.height;
    const std::array<cv::Point, 4> anchors = {
        cv::Point(p1.x, p1.y - band_h), p1, cv::Point(p1.x, p2.y), cv::Point(p1.x, p2.y - band_h)};
    Band best;
    int best_overlap = -1;
    for (const cv::Point& anchor : anchors) {
      const Band band = band_at(bgr, text, anchor, scale, text_thickness);
      int overlap = 0;
      for (const Placed& other : placed) overlap += (band.rect & other.band.rect).area();
      for (const cv::Rect& area : options.keep_clear) overlap += (band.rect & area).area();
      if (best_overlap < 0 || overlap < best_overlap) {
        best = band;
        best_overlap = overlap;
      }
      if (overlap == 0) break;
    }
    placed.push_back({std::move(text), color, best});
  }
  // Best detection last, so where labels still overlap its label is the one on top.
  for (auto it = placed.rbegin(); it != placed.rend(); ++it) {
    draw_band(bgr, it->band, it->text, it->color, ink_for(it->color), scale, text_thickness);
  }
}

namespace {

// The status line's font scale and thickness, from the image size as for labels.
struct StatusStyle {
  double scale;
  int thickness;
};
StatusStyle status_style(const cv::Mat& bgr) {
  const int lw = line_width_for(bgr, 0);
  return {lw / 3.0, std::max(lw - 1, 1)};
}

}  // namespace

cv::Rect status_band(const cv::Mat& bgr, std::string_view text) {
  if (bgr.empty() || text.empty()) return {};
  const StatusStyle style = status_style(bgr);
  return band_at(bgr, std::string(text), {0, 0}, style.scale, style.thickness).rect;
}

void draw_status(cv::Mat& bgr, std::string_view text) {
  if (bgr.empty() || text.empty()) return;
  const StatusStyle style = status_style(bgr);
  const std::string line(text);
  draw_band(bgr, band_at(bgr, line, {0, 0}, style.scale, style.thickness), line,
            cv::Scalar(32, 32, 32), cv::Scalar(255, 255, 255), style.scale, style.thickness);
}

int line_width(const cv::Mat& bgr) {
  return line_width_for(bgr, 0);
}

cv::Rect draw_tag(cv::Mat& bgr, std::string_view text, cv::Point at, const cv::Scalar& fill,
                  double size) {
  if (bgr.empty() || text.empty()) return {};
  const StatusStyle style = status_style(bgr);
  const double scale = style.scale * size;
  const int thickness = std::max(1, static_cast<int>(std::lround(style.thickness * size)));
  const std::string line(text);
  const Band band = band_at(bgr, line, at, scale, thickness);
  draw_band(bgr, band, line, fill, ink_for(fill), scale, thickness);
  return band.rect;
}

}  // namespace yolo::vision
