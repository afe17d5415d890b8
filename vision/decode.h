// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "vision/detection.h"
#include "vision/letterbox.h"
#include "vision/nms.h"

namespace yolo::vision {

// Which YOLO output layout to read.
enum class DecoderKind {
  // From the output shape and the model's end2end flag.
  kAuto,
  // [1, 4+nc, N]: cx, cy, w, h then one (sigmoid) score per class. YOLOv5u, v8, 11.
  kYolov8,
  // [1, K, 6]: x1, y1, x2, y2, score, class, already filtered by the model. YOLO26, v10, nms=True.
  kEnd2End,
  // [1, N, 5+nc]: cx, cy, w, h, objectness, class scores; score = objectness x class. YOLOv5.
  kYolov5,
};

const char* decoder_name(DecoderKind kind);

// An output that the chosen decoder cannot read; the message says which shape was expected.
class DecodeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct DecodeOptions {
  DecoderKind kind = DecoderKind::kAuto;
  // The model's metadata declares it end-to-end (NMS-free).
  bool end2end = false;
  // Keep candidates whose score is greater than this.
  float conf = 0.25f;
  float iou = 0.45f;
  bool agnostic = false;
  int max_detections = 300;
  // Keep only these class ids (after picking each candidate's best class); empty keeps all.
  std::vector<int> classes;
  // Every class of a row scoring above conf becomes a candidate, not only its best one. For
  // measuring mAP (Ultralytics val does the same): an object whose two best classes are close
  // keeps both, so a small score change cannot make it vanish from the predictions.
  bool multi_label = false;
};

// The NMS that `options` asks for (its iou, agnostic and max_detections).
NmsOptions nms_options(const DecodeOptions& options);

// The decoder for an output of `shape`: `requested` when it is not kAuto (checked against the
// shape), else end-to-end when `end2end` is set or the rows have 6 values, else [1, 4+nc, N]
// when N exceeds 4+nc, else YOLOv5. A one-class YOLOv5 ([1, N, 6]) needs kYolov5 explicitly.
DecoderKind choose_decoder(std::span<const std::int64_t> shape, DecoderKind requested,
                           bool end2end);

// Candidates in network-input pixels: the best class of each row (every class with
// `multi_label`), kept when its score is greater than `conf` and its class is in `classes` (all
// when empty). No NMS. `kind` must not be kAuto. End-to-end rows have one class each, and the
// rows of one anchor share its box: the best of them stands for the box (all with `multi_label`).
Detections decode_candidates(std::span<const float> output, std::span<const std::int64_t> shape,
                             DecoderKind kind, float conf, std::span<const int> classes = {},
                             bool multi_label = false);

// The whole post-processing of one output: decode, class-aware (or agnostic) NMS (end-to-end
// models too: they emit the odd duplicate box), at most max_detections by descending score, boxes
// mapped back to the frame and clipped.
Detections postprocess(std::span<const float> output, std::span<const std::int64_t> shape,
                       const DecodeOptions& options, const LetterboxTransform& transform);

}  // namespace yolo::vision
