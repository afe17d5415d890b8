// SPDX-License-Identifier: Apache-2.0
#pragma once

// `auto`'s measured choice of final convs kept FP32.

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/quantize/calibrate.h"
#include "runtime/quantize/fp32_trade.h"
#include "runtime/quantize/noise_meter.h"
#include "runtime/quantize/regions.h"

namespace yolo::runtime {

// A final conv stays FP32 when keeping it raises the SQNR of its own output by at least this much:
// its own quantization then contributes at least half the noise there.
inline constexpr double kKeepGainDb = 3.0;
// ... or when calibration saw its output above 0 over less than this share of its range: a class
// logit above 0 is a score above 0.5, i.e. a detection, and a scene with few objects (a camera
// watching birds) leaves that side of the range unseen, so int8 would clip the very scores that
// matter on the first confident detection (0.5 at most when the maximum seen was below 0).
inline constexpr double kMinPositiveShare = 0.10;

// Sensitivity of the final convs: SQNR of each one's output (as its consumers see it) with
// everything before it quantized, then with that conv alone kept FP32. Adds the convs kept to
// `keep`; returns the report's "sensitivity" rows and logs one line per conv.
nlohmann::json judge_final_convs(const std::vector<std::string>& final_convs,
                                 const std::vector<ConvUnit>& units, const NoiseMeter& meter,
                                 const Calibration& calib, KeepReasons& keep,
                                 const std::function<void(const std::string&)>& log);

}  // namespace yolo::runtime
