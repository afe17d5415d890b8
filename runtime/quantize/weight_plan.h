// SPDX-License-Identifier: Apache-2.0
#pragma once

// The quantizer's weight phase: every real conv's int8 weights (rounded to nearest, or up or down
// as its output error on the calibration frames says) and bias corrections.

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/quantize/calibrate.h"
#include "runtime/quantize/qdq_rewrite.h"

namespace yolo::runtime {

enum class WeightRounding {
  kNearest,   // every weight to its nearest int8 step
  kAdaptive,  // per layer, up or down as minimises the layer's output error (AdaRound-style)
};
// "nearest", "adaptive".
const char* to_string(WeightRounding rounding);
// Throws std::invalid_argument naming the accepted values.
WeightRounding parse_weight_rounding(const std::string& text);

// Output pixels per conv whose patches the adaptive rounding measures, over all held frames: for
// the largest YOLO patches (256 channels x 3 x 3 = 2304 values) about 7 samples per unknown of
// the matrix's rows, enough that the rounding found on them holds on other frames.
inline constexpr std::int64_t kRoundingSamples = 16384;
// The patch matrices gathered at once, in doubles (64 MB): the held frames run once per batch of
// convs that fits.
inline constexpr std::int64_t kRoundingMemory = std::int64_t{8} << 20;

struct WeightPhase {
  WeightPlan plan;
  // Per conv: "node", the error of round-to-nearest and of the chosen rounding (SQNR dB over the
  // held frames' patches), the gain on the frames it was not chosen on, which rounding it keeps,
  // weights flipped, the bias correction's largest shift.
  nlohmann::json report = nlohmann::json::array();
};

// Plans the int8 weights of every tap. Adaptive rounding runs the held frames through `fp32`
// (batches of convs within kRoundingMemory) to gather each conv's PatchGram, separately for the
// even and the odd frames: a conv takes the rounding chosen on the even ones only where it also
// lowers the error on the odd ones (and then the rounding chosen on all). Bias correction uses the
// patch means of all calibration frames.
WeightPhase plan_weights(const onnx::GraphProto& graph, const std::vector<ConvTap>& taps,
                         ObservingEngine& fp32, const Calibration& calib, WeightRounding rounding,
                         bool bias_correction, const std::function<void(const std::string&)>& log);

}  // namespace yolo::runtime
