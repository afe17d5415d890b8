// SPDX-License-Identifier: Apache-2.0
#include "vision/nms.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace yolo::vision {
namespace {

struct Kept {
  Box box;
  float area;
};

bool overlaps(const Box& b, float b_area, const std::vector<Kept>& kept, float threshold) {
  for (const Kept& k : kept) {
    const float iw = std::min(b.x2, k.box.x2) - std::max(b.x1, k.box.x1);
    if (iw <= 0) continue;
    const float ih = std::min(b.y2, k.box.y2) - std::max(b.y1, k.box.y1);
    if (ih <= 0) continue;
    const float inter = iw * ih;
    const float uni = b_area + k.area - inter;
    if (uni > 0 && inter / uni > threshold) return true;
  }
  return false;
}

}  // namespace

Detections nms(Detections candidates, const NmsOptions& options) {
  if (options.max_detections <= 0 || candidates.empty()) return {};
  int max_class = 0;
  for (const Detection& d : candidates) {
    if (d.class_id < 0)
      throw std::invalid_argument("nms: negative class id " + std::to_string(d.class_id));
    max_class = std::max(max_class, d.class_id);
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Detection& a, const Detection& b) { return a.score > b.score; });

  // One list of kept boxes per class: a candidate is only compared with its own class, which is
  // what the coordinate-offset trick achieves, without the float precision it costs.
  std::vector<std::vector<Kept>> kept(options.agnostic ? 1
                                                       : static_cast<std::size_t>(max_class) + 1);
  const auto limit = static_cast<std::size_t>(options.max_detections);
  Detections out;
  for (const Detection& d : candidates) {
    auto& same = kept[options.agnostic ? 0 : static_cast<std::size_t>(d.class_id)];
    const float area = d.box.area();
    if (overlaps(d.box, area, same, options.iou)) continue;
    same.push_back({d.box, area});
    out.push_back(d);
    // Later (lower-scored) boxes cannot change what was kept before them.
    if (out.size() == limit) break;
  }
  return out;
}

}  // namespace yolo::vision
