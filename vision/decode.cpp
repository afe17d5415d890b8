// SPDX-License-Identifier: Apache-2.0
#include "vision/decode.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "runtime/engine/shape_text.h"
#include "vision/nms.h"

namespace yolo::vision {
namespace {

// Ultralytics sends at most this many candidates into NMS.
constexpr std::size_t kMaxNmsCandidates = 30000;

[[noreturn]] void bad_shape(std::span<const std::int64_t> shape, DecoderKind kind,
                            const std::string& expected) {
  throw DecodeError("output shape " + runtime::shape_text(shape) + " does not fit the " +
                    decoder_name(kind) + " decoder, which expects " + expected +
                    "; check the model or choose another decoder");
}

void check_shape(std::span<const std::int64_t> shape, DecoderKind kind) {
  const bool batch_one = shape.size() == 3 && shape[0] == 1 && shape[1] > 0 && shape[2] > 0;
  switch (kind) {
    case DecoderKind::kYolov8:
      if (!batch_one || shape[1] < 5) bad_shape(shape, kind, "[1, 4+nc, N] with nc >= 1");
      return;
    case DecoderKind::kEnd2End:
      if (!batch_one || shape[2] != 6) bad_shape(shape, kind, "[1, K, 6]");
      return;
    case DecoderKind::kYolov5:
      if (!batch_one || shape[2] < 6) bad_shape(shape, kind, "[1, N, 5+nc] with nc >= 1");
      return;
    case DecoderKind::kAuto:
      break;
  }
  throw DecodeError("decode: no decoder chosen (kAuto must be resolved with choose_decoder)");
}

bool wanted(int class_id, std::span<const int> classes) {
  return classes.empty() || std::find(classes.begin(), classes.end(), class_id) != classes.end();
}

Box from_center(float cx, float cy, float w, float h) {
  return {cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2};
}

void decode_yolov8(const float* data, std::size_t channels, std::size_t n, float conf,
                   std::span<const int> classes, bool multi_label, Detections& out) {
  auto box = [&](std::size_t i) {
    return from_center(data[i], data[n + i], data[2 * n + i], data[3 * n + i]);
  };
  if (multi_label) {
    for (std::size_t c = 0; c + 4 < channels; ++c) {
      const float* row = data + (4 + c) * n;
      const int class_id = static_cast<int>(c);
      if (!wanted(class_id, classes)) continue;
      for (std::size_t i = 0; i < n; ++i) {
        if (row[i] > conf) out.push_back({class_id, row[i], box(i)});
      }
    }
    return;
  }
  // Class-major scan: each class row is contiguous, so the best-class search streams memory
  // instead of striding by N for every candidate.
  std::vector<float> best(data + 4 * n, data + 5 * n);
  std::vector<int> best_class(n, 0);
  for (std::size_t c = 1; c + 4 < channels; ++c) {
    const float* row = data + (4 + c) * n;
    for (std::size_t i = 0; i < n; ++i) {
      if (row[i] > best[i]) {
        best[i] = row[i];
        best_class[i] = static_cast<int>(c);
      }
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (!(best[i] > conf) || !wanted(best_class[i], classes)) continue;
    out.push_back({best_class[i], best[i], box(i)});
  }
}

void decode_yolov5(const float* data, std::size_t n, std::size_t stride, float conf,
                   std::span<const int> classes, bool multi_label, Detections& out) {
  for (std::size_t i = 0; i < n; ++i) {
    const float* r = data + i * stride;
    const float objectness = r[4];
    if (!(objectness > conf)) continue;
    const Box box = from_center(r[0], r[1], r[2], r[3]);
    float best = r[5] * objectness;
    int best_class = 0;
    for (std::size_t c = 0; c + 5 < stride; ++c) {
      const float s = r[5 + c] * objectness;
      const int class_id = static_cast<int>(c);
      if (multi_label) {
        if (s > conf && wanted(class_id, classes)) out.push_back({class_id, s, box});
      } else if (s > best) {
        best = s;
        best_class = class_id;
      }
    }
    if (multi_label || !(best > conf) || !wanted(best_class, classes)) continue;
    out.push_back({best_class, best, box});
  }
}

// Ultralytics' end-to-end head takes its best anchors, then its best (anchor, class) pairs, so one
// anchor may give rows of several classes with the same box (a car as car 0.85 and truck 0.30).
// Without multi_label each box keeps its best class only, as the other decoders keep it: drawn,
// counted and judged once. The rows of one anchor hold bit-identical boxes.
void decode_end2end(const float* data, std::size_t k, float conf, std::span<const int> classes,
                    bool multi_label, Detections& out) {
  const std::size_t first = out.size();
  for (std::size_t i = 0; i < k; ++i) {
    const float* r = data + i * 6;
    if (!(r[4] > conf)) continue;
    const int class_id = static_cast<int>(std::lround(r[5]));
    if (class_id < 0) continue;
    const Detection d{class_id, r[4], {r[0], r[1], r[2], r[3]}};
    if (multi_label) {
      if (wanted(class_id, classes)) out.push_back(d);
      continue;
    }
    const auto same = std::find_if(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
                                   [&](const Detection& o) { return o.box == d.box; });
    if (same == out.end()) {
      out.push_back(d);
    } else if (d.score > same->score) {
      *same = d;
    }
  }
  if (!multi_label) {
    out.erase(std::remove_if(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
                             [&](const Detection& d) { return !wanted(d.class_id, classes); }),
              out.end());
  }
}

}  // namespace

// The name of each decoder, in the enum's order.
constexpr std::array<const char*, 4> kDecoderNames{"auto", "yolov8", "end2end", "yolov5"};
static_assert(kDecoderNames.size() == static_cast<std::size_t>(DecoderKind::kYolov5) + 1);

const char* decoder_name(DecoderKind kind) {
  const auto i = static_cast<std::size_t>(kind);
  return i < kDecoderNames.size() ? kDecoderNames[i] : "unknown";
}

DecoderKind choose_decoder(std::span<const std::int64_t> shape, DecoderKind requested,
                           bool end2end) {
  DecoderKind kind = requested;
  if (kind == DecoderKind::kAuto) {
    if (shape.size() != 3 || shape[0] != 1)
      throw DecodeError("output shape " + runtime::shape_text(shape) +
                        " is not a YOLO detection output: expected [1, 4+nc, N], [1, K, 6] or "
                        "[1, N, 5+nc] (batch 1)");
    if (end2end || shape[2] == 6)
      kind = DecoderKind::kEnd2End;
    else if (shape[2] > shape[1])
      kind = DecoderKind::kYolov8;
    else
      kind = DecoderKind::kYolov5;
  }
  check_shape(shape, kind);
  return kind;
}

NmsOptions nms_options(const DecodeOptions& options) {
  return {options.iou, options.agnostic, options.max_detections};
}

Detections decode_candidates(std::span<const float> output, std::span<const std::int64_t> shape,
                             DecoderKind kind, float conf, std::span<const int> classes,
                             bool multi_label) {
  check_shape(shape, kind);
  const auto rows = static_cast<std::size_t>(shape[1]);
  const auto cols = static_cast<std::size_t>(shape[2]);
  if (output.size() != rows * cols)
    throw DecodeError("output holds " + std::to_string(output.size()) + " values but its shape " +
                      runtime::shape_text(shape) + " needs " + std::to_string(rows * cols));
  Detections out;
  switch (kind) {
    case DecoderKind::kYolov8:
      decode_yolov8(output.data(), rows, cols, conf, classes, multi_label, out);
      break;
    case DecoderKind::kYolov5:
      decode_yolov5(output.data(), rows, cols, conf, classes, multi_label, out);
      break;
    case DecoderKind::kEnd2End:
      decode_end2end(output.data(), rows, conf, classes, multi_label, out);
      break;
    case DecoderKind::kAuto:
      break;
  }
  return out;
}

Detections postprocess(std::span<const float> output, std::span<const std::int64_t> shape,
                       const DecodeOptions& options, const LetterboxTransform& transform) {
  const DecoderKind kind = choose_decoder(shape, options.kind, options.end2end);
  Detections dets =
      decode_candidates(output, shape, kind, options.conf, options.classes, options.multi_label);
  // End-to-end rows go through the same NMS: such a model is trained to leave one box per object,
  // yet emits a second one now and then (YOLO26n FP32 on the traffic fixture: 19 of its 732 car
  // boxes above 0.25 cover a car already boxed, at IoU 0.6-1.0), which a count or an alarm
  // would take for two objects. Its rows are few (at most K), so this costs nothing measurable.
  if (dets.size() > kMaxNmsCandidates) {
    std::partial_sort(dets.begin(), dets.begin() + kMaxNmsCandidates, dets.end(),
                      [](const Detection& a, const Detection& b) { return a.score > b.score; });
    dets.resize(kMaxNmsCandidates);
  }
  dets = nms(std::move(dets), nms_options(options));
  for (Detection& d : dets) d.box = transform.to_frame(d.box);
  return dets;
}

}  // namespace yolo::vision
