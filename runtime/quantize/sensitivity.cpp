// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/sensitivity.h"

#include <algorithm>
#include <limits>
#include <map>

#include "text/format.h"

namespace yolo::runtime {

nlohmann::json judge_final_convs(const std::vector<std::string>& final_convs,
                                 const std::vector<ConvUnit>& units, const NoiseMeter& meter,
                                 const Calibration& calib, KeepReasons& keep,
                                 const std::function<void(const std::string&)>& log) {
  nlohmann::json rows = nlohmann::json::array();
  const double all_macs = total_macs(units);
  std::map<std::string, double> macs;
  for (const auto& u : units) macs[u.conv] = u.macs;
  const std::set<std::string> base = kept_nodes(keep);
  const Measurement before = meter.measure(base);
  const std::vector<double>& all_int8 = before.sqnr_db;
  for (std::size_t k = 0; k < final_convs.size(); ++k) {
    const std::string& conv = final_convs[k];
    std::set<std::string> with_conv = base;
    with_conv.insert(conv);
    const Measurement with = meter.measure(with_conv);
    const double kept_db = with.sqnr_db[k];
    const double gain = kept_db - all_int8[k];
    Fp32Trade trade{conv,
                    with.noise_db() - before.noise_db(),
                    (macs.count(conv) ? macs.at(conv) : 0.0) / all_macs,
                    with.frame_ms - before.frame_ms,
                    std::nullopt,
                    false};
    if (with.agreement && before.agreement) {
      trade.agreement_gain = *with.agreement - *before.agreement;
    }
    const std::string cost = trade_text(trade, meter.agreement_name());
    const TensorStatistics& seen = calib.stats.at(meter.outputs()[k]);
    const double positive_share =
        std::max(0.0F, seen.max()) /
        std::max(seen.max() - seen.min(), std::numeric_limits<float>::min());
    const bool unseen_positive = positive_share < kMinPositiveShare;
    const bool keep_it = gain >= kKeepGainDb || unseen_positive;
    rows.push_back({{"node", conv},
                    {"sqnr_int8_db", text::rounded(all_int8[k], 2)},
                    {"sqnr_kept_fp32_db", text::rounded(kept_db, 2)},
                    {"gain_db", text::rounded(gain, 2)},
                    {"cost_ms", text::rounded(trade.cost_ms, 2)},
                    {"final_convs_gain_db", text::rounded(trade.gain_db, 2)},
                    {"agreement_gain", trade.agreement_gain
                                           ? nlohmann::json(text::rounded(*trade.agreement_gain, 4))
                                           : nlohmann::json(nullptr)},
                    {"calibrated_min", seen.min()},
                    {"calibrated_max", seen.max()},
                    {"kept_fp32", keep_it}});
    if (gain >= kKeepGainDb) {
      keep[conv] = text::format(
          "final conv: keeping it FP32 raises its output SQNR from %.1f to %.1f dB (>= %.0f dB "
          "gain); FP32 measured %s",
          all_int8[k], kept_db, kKeepGainDb, cost.c_str());
    } else if (unseen_positive) {
      keep[conv] = text::format(
          "final conv: calibration saw its output in [%.2f, %.2f], above 0 over %.1f%% of that "
          "range only; int8 would clip scores above those of the calibration frames; FP32 "
          "measured %s",
          seen.min(), seen.max(), 100.0 * positive_share, cost.c_str());
    }
    log("final conv " + conv +
        text::format(": SQNR %.1f dB int8, %.1f dB kept FP32 (%s), range [%.2f, %.2f]", all_int8[k],
                     kept_db, cost.c_str(), seen.min(), seen.max()) +
        (keep_it ? " -> kept FP32" : " -> int8"));
  }
  return rows;
}

}  // namespace yolo::runtime
