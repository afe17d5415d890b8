// SPDX-License-Identifier: Apache-2.0
#pragma once

// `auto`'s rule for activations whose channels differ too much for one int8 scale: the convs on
// both sides of such a tensor stay FP32, so that it is never rounded.

#include <onnx/onnx_pb.h>

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/quantize/calibrate.h"
#include "runtime/quantize/regions.h"

namespace yolo::runtime {

// An activation is quantized with one scale for all its channels (XNNPACK's int8 convolutions
// take no other). Where the largest channel's peak is more than this many times the median
// channel's, half the channels keep fewer than 255 / 10 ~ 25 steps: their information, small in
// signal power (so SQNR does not see it) but what the rarer classes are told apart by, is rounded
// away. YOLO26's class branches reach 11-33 (docs/quantization.md); most tensors stay under 5.
inline constexpr double kMaxChannelSpread = 10.0;
// The convs kept FP32 for spread hold at most this share of the conv MACs together (the widest
// spreads first).
inline constexpr double kMaxSpreadMacShare = 0.05;

// One tensor a conv reads whose spread is above kMaxChannelSpread, and what was done about it.
struct SpreadTensor {
  std::string tensor;
  double spread = 0;
  // The convs made FP32 for it: the one producing it (with its SiLU) and the ones reading it.
  std::vector<std::string> convs;
  // Their share of the conv MACs, those already kept FP32 aside.
  double mac_share = 0;
  bool kept = false;
  // Why not, when not kept.
  std::string why_not;
};

// Finds the tensors of `calib.channel_peaks` spread above kMaxChannelSpread, widest first, and
// keeps FP32 (in `keep`, with the reason) the conv units producing and reading each, while they
// stay within kMaxSpreadMacShare. A tensor made or also read by anything but a conv (a Concat,
// an Add) is left int8: that node would round it anyway. Logs one line per tensor.
std::vector<SpreadTensor> keep_spread_tensors(const onnx::GraphProto& graph,
                                              const std::vector<ConvUnit>& units,
                                              const Calibration& calib, KeepReasons& keep,
                                              const std::function<void(const std::string&)>& log);

// The report's `channel_spread`: one row per tensor above the limit.
nlohmann::json spread_report(const std::vector<SpreadTensor>& tensors);

}  // namespace yolo::runtime
