// SPDX-License-Identifier: Apache-2.0
#pragma once

// `auto`'s measured choice of convs kept FP32 for agreement: a conv stays FP32 only where keeping
// it lowers the int8 noise at the final convs by more than its milliseconds are worth.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/quantize/noise_meter.h"
#include "runtime/quantize/regions.h"

namespace yolo::runtime {

// Measured noise differs between machines: their float kernels round differently, which moves
// calibrated scales by ~1e-6 and flips rare ties in the fake-quant runs that measure the noise,
// and over ~90 layers those flips move a measurement by 0.5 dB and more (docs/quantization.md).
// A decision needs its measurement this far from the threshold to be the same everywhere.
inline constexpr double kDecisionMarginDb = 1.0;

// The convs `auto` weighs keeping FP32: the first ones, within this share of all conv MACs. YOLO's
// first convs run at full and half resolution on few channels, and one per-tensor int8 range
// covers channels whose ranges differ tenfold; their rounding noise runs through the network.
inline constexpr double kMaxLayerMacShare = 0.12;

// Keeping a conv FP32 must remove at least half the int8 noise at the final convs (3 dB), plus
// the machines' margin, ...
inline constexpr double kTradeGainDb = 3.0 + kDecisionMarginDb;
// ... and hold at most this share of the conv MACs (an FP32 conv costs 2-4x its int8 time, so 5%
// of the MACs is 10-15% of an int8 frame). The cost is judged by MACs, which are the same on
// every machine, so the choice is too; the milliseconds measured are reported beside it (on a
// shared machine they move by more than a small conv's cost).
inline constexpr double kMaxTradeMacShare = 0.05;

// Whether a conv that lowers the noise by `gain_db` holding `mac_share` of the conv MACs stays
// FP32, when `spent` of the MACs are already kept FP32 beyond the detection tail and the final
// convs (for channel spread, or by earlier trades): the budget is for all of them together, as
// the frame pays for all of them (issue 41: on the crowd clip yolo26n kept two first convs, 5.5 %
// of the MACs, beside 3.9 % for spread, and the unseen half agreed no better without them).
bool worth_fp32(double gain_db, double mac_share, double spent = 0.0);

// One conv weighed: what keeping it FP32 (alone, everything else as chosen) measured.
struct Fp32Trade {
  std::string conv;
  double gain_db = 0;
  double mac_share = 0;
  double cost_ms = 0;
  // The judge's figure with the conv FP32 minus without (empty without a judge).
  std::optional<double> agreement_gain;
  bool kept = false;
};

struct TradeReport {
  std::vector<Fp32Trade> trades;
  // The measurement with every choice made (kept convs FP32).
  Measurement chosen;
  // Before the search (only the tail and the final convs kept).
  Measurement before;
};

// Weighs every conv unit of `units` from the first, within kMaxLayerMacShare and before the
// final convs, then the attention convs (GraphRegions::attention_convs), one at a time with the
// rest as `keep` says; adds those worth_fp32() to `keep` (each with its trade as the reason) and
// logs one line per conv.
TradeReport search_fp32_trades(const std::vector<ConvUnit>& units, const GraphRegions& regions,
                               const NoiseMeter& meter, KeepReasons& keep,
                               const std::function<void(const std::string&)>& log);

// "+0.8 ms (2.1% of conv MACs), +3.2 dB at the final convs, box AP50 +0.020": a trade as the
// log and the report say it.
std::string trade_text(const Fp32Trade& trade, const std::string& agreement_name);

}  // namespace yolo::runtime
