// SPDX-License-Identifier: Apache-2.0
#include "daemon/core/decode_options.h"

namespace yolo::daemon {

vision::DecodeOptions decode_options(const config::DetectConfig& detect) {
  vision::DecodeOptions d;
  d.conf = static_cast<float>(detect.conf);
  d.iou = static_cast<float>(detect.iou);
  d.classes = detect.classes;
  d.max_detections = detect.max_detections;
  d.agnostic = detect.agnostic_nms;
  return d;
}

}  // namespace yolo::daemon
