// SPDX-License-Identifier: Apache-2.0
#pragma once

// `auto`'s measured choice of the first convs kept FP32 (the stem).

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/quantize/noise_meter.h"
#include "runtime/quantize/regions.h"

namespace yolo::runtime {

// Measured noise differs between machines: their float kernels round differently, which moves
// calibrated scales by ~1e-6 and flips rare ties in the fake-quant runs that measure the noise,
// and over ~90 layers those flips move a prefix's noise by 0.5 dB and more (docs/quantization.md).
// `auto` changes a choice only on a difference larger than this margin.
inline constexpr double kDecisionMarginDb = 1.0;

// The first convs kept FP32 hold at most this share of all conv MACs, which bounds their cost in
// speed.
inline constexpr double kMaxLayerMacShare = 0.12;

// The stem `auto` keeps FP32, from the noise at the final convs with the first k convs kept FP32
// (prefix_noise[k]; [0]: none kept): starting from none, a longer prefix replaces the choice so far
// only when its noise is lower by more than kDecisionMarginDb. Returns the number of convs kept.
std::size_t choose_stem_prefix(const std::vector<double>& prefix_noise);

// What the stem search measured, for the report.
struct StemReport {
  // Per prefix tried: "first_convs", "through", "mac_share", "noise_removed".
  nlohmann::json prefixes = nlohmann::json::array();
  // "final_conv_sqnr_db_all_int8" and "final_conv_sqnr_db_kept".
  nlohmann::json noise = nlohmann::json::object();
};

// The stem: YOLO's first convs run at full resolution on few channels, and one per-tensor int8
// range must cover channels whose ranges differ tenfold; their rounding noise then runs through
// the whole network. Measured as the noise at the final convs' outputs with the first k conv
// units kept FP32, for every k within kMaxLayerMacShare; choose_stem_prefix decides. Adds the
// chosen units to `keep`.
StemReport search_stem(const std::vector<ConvUnit>& units,
                       const std::vector<std::string>& final_convs, const NoiseMeter& meter,
                       KeepReasons& keep, const std::function<void(const std::string&)>& log);

}  // namespace yolo::runtime
