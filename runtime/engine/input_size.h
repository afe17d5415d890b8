// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

namespace yolo::runtime {

// The network input size asked for (--imgsz, model.imgsz). Only a model exported with dynamic
// axes takes a size other than its own; a fixed-shape file keeps its shape under kAuto and
// refuses any other kFixed size.
struct InputSize {
  enum class Mode {
    // The model's own: its fixed shape, else the imgsz its metadata records.
    kModel,
    // height x width, each a multiple of the model's stride.
    kFixed,
    // The source's aspect with the long side as exported, each side rounded up to a multiple of
    // the stride (Ultralytics' rectangular inference: 384x640 for a 16:9 source at 640).
    // height x width hold the source frame's size; 0 x 0 while it is not known (the model's own
    // size meanwhile).
    kAuto,
  };
  Mode mode = Mode::kModel;
  int height = 0;
  int width = 0;

  static InputSize fixed(int height, int width) { return {Mode::kFixed, height, width}; }
  static InputSize automatic(int frame_height = 0, int frame_width = 0) {
    return {Mode::kAuto, frame_height, frame_width};
  }
  // kAuto with the source's frame size known.
  bool has_frame() const { return mode == Mode::kAuto && height > 0 && width > 0; }
  bool operator==(const InputSize&) const = default;
};

// "the model's own", "384x640" (height x width), "auto" or "auto for 720x1280 frames".
std::string to_string(const InputSize& size);

// The input for frames of frame_height x frame_width: their aspect with the long side
// `long_side`, each side rounded up to a multiple of `stride` (720x1280, 640, 32 -> 384x640).
InputSize aspect_input(int frame_height, int frame_width, int long_side, int stride);

}  // namespace yolo::runtime
