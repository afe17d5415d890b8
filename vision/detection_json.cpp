// SPDX-License-Identifier: Apache-2.0
#include "vision/detection_json.h"

#include <string>

#include "text/format.h"

namespace yolo::vision {

nlohmann::json detection_json(const Detection& d, std::string_view label) {
  return {{"class_id", d.class_id},
          {"label", std::string(label)},
          {"score", text::rounded(d.score, 3)},
          {"box",
           {text::rounded(d.box.x1, 1), text::rounded(d.box.y1, 1), text::rounded(d.box.x2, 1),
            text::rounded(d.box.y2, 1)}}};
}

}  // namespace yolo::vision
