// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "vision/detection.h"

namespace yolo::vision {

// One detection as every JSON output writes it (the live view's API and event stream, MQTT's
// detections, `yolo-edge detect --json`), one field set for all:
//   {"class_id": 14, "label": "bird", "score": 0.871, "box": [412.5, 80.0, 530.1, 171.9]}
// The score to 3 places; the box's corners (x1, y1, x2, y2) in the source image's pixels, to 1.
nlohmann::json detection_json(const Detection& d, std::string_view label);

}  // namespace yolo::vision
