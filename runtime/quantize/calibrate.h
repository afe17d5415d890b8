// SPDX-License-Identifier: Apache-2.0
#pragma once

// Calibration: the FP32 model run on the caller's frames with the tensors a rewrite may quantize
// observed, their statistics, and the ranges refined from them.

#include <onnx/onnx_pb.h>

#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/engine/engine.h"
#include "runtime/quantize/calibration.h"
#include "runtime/quantize/conv_patches.h"

namespace yolo::runtime {

// Loads `model` with the tensors in `observe` added as graph outputs (a temporary copy, named
// after `beside`), so their values can be read after each run without touching the engine. The
// engine does not fuse a value that is a graph output, so every observed tensor is really
// produced.
class ObservingEngine {
 public:
  ObservingEngine(const onnx::ModelProto& model, const std::vector<std::string>& observe,
                  const std::filesystem::path& beside, const EngineOptions& options);
  Engine& engine() { return *engine_; }
  const Tensor& value(const std::string& name) const { return engine_->output(outputs_.at(name)); }
  // The engine's input buffer: 3 * width * height floats in engine().input_layout().
  std::span<float> input();

 private:
  std::unique_ptr<Engine> engine_;
  std::map<std::string, std::size_t> outputs_;
};

// What calibration observes: every tensor any candidate rewrite may quantize (the model input
// aside), plus Softmax inputs (their rank decides whether an opset-12 model can be raised to 13).
std::vector<std::string> observed_tensors(const onnx::GraphProto& graph);

// Writes the next calibration frame into `dst` (3 * width * height floats, RGB / 255, letterboxed
// as detection does) in `layout` (kNchwFloat or kNhwcFloat); false when there are no more.
using FrameProvider =
    std::function<bool(InputLayout layout, int width, int height, std::span<float> dst)>;

// A real conv whose input patches calibration gathers: its input is observed (or is the model
// input).
struct ConvTap {
  std::string conv;
  std::string input;
  std::string weight;
  ConvGeometry geometry;
  bool reads_model_input = false;
};
// Every real conv of the graph (not the DFL's) with a 4-D weight, in graph order.
std::vector<ConvTap> conv_taps(const onnx::GraphProto& graph);

// The input `tap` reads after `fp32` ran: an observed tensor, or the model input (converted to
// NCHW in `scratch` when the engine takes NHWC).
ConvInput tap_input(ObservingEngine& fp32, const ConvTap& tap, std::vector<float>& scratch);

// What the calibration frames showed, per observed tensor.
struct Calibration {
  int frames = 0;
  std::map<std::string, TensorStatistics> stats;
  std::map<std::string, std::size_t> ranks;
  std::map<std::string, Shape> shapes;
  // Per conv node: the means of its input patches over all frames (bias correction).
  std::map<std::string, PatchMeans> patch_means;
  // Per tensor a conv reads (the model input aside: exact int8 pixels), each channel's peak
  // |value| over all frames (channel_spread.h).
  std::map<std::string, ChannelPeaks> channel_peaks;
  // A uniform sample of the frames (at most kSensitivityFrames), to measure sensitivities on.
  std::vector<std::vector<float>> held_frames;
};

// Calibration frames kept (a uniform sample of all of them) to measure sensitivities. The noise
// at the final convs is decided by the few cells holding objects, so a handful of frames is not
// enough: on yolo11n, keeping one mid-network conv FP32 measured -47 % of the noise removed on 6
// frames and +5 % on 30, and the stem choice followed such luck. 24 frames (4.7 MB each at 640)
// gave the same choices as 32 there.
inline constexpr int kSensitivityFrames = 24;

// Runs `fp32` on at most `max_frames` frames, gathering the patch means of every tap; `log` gets
// progress lines. Throws QuantizeError when the source gives no frame.
Calibration calibrate(ObservingEngine& fp32, const std::vector<std::string>& observed,
                      const std::vector<ConvTap>& taps, int max_frames, const FrameProvider& frames,
                      const std::function<void(const std::string&)>& log);

// Narrows calibrated ranges where the consumers make part of a range irrelevant, and returns
// why, per tensor changed:
// - a tensor read only by a SiLU (Sigmoid(t) and Mul(t, Sigmoid(t))): below the x where |SiLU(x)|
//   is half a step of the SiLU output's int8 scale, every input gives the same int8 output, so the
//   range starts there. Early conv outputs reach -100 where SiLU is 0: those ranges shrink 2-4x.
// - a Sigmoid output: [0, 1], its exact range (a calibrated 0.99 would clip).
std::map<std::string, std::string> refine_ranges(const onnx::GraphProto& graph,
                                                 std::map<std::string, ActivationRange>& ranges);

}  // namespace yolo::runtime
