// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/sensitivity.h"

#include <algorithm>
#include <limits>

#include "runtime/quantize/text.h"

namespace yolo::runtime {

nlohmann::json judge_final_convs(const std::vector<std::string>& final_convs,
                                 const NoiseMeter& meter, const Calibration& calib,
                                 KeepReasons& keep,
                                 const std::function<void(const std::string&)>& log) {
  nlohmann::json rows = nlohmann::json::array();
  const std::set<std::string> base = kept_nodes(keep);
  const std::vector<double> all_int8 = meter.sqnr_db(base);
  for (std::size_t k = 0; k < final_convs.size(); ++k) {
    const std::string& conv = final_convs[k];
    std::set<std::string> with_conv = base;
    with_conv.insert(conv);
    const double kept_db = meter.sqnr_db(with_conv)[k];
    const double gain = kept_db - all_int8[k];
    const TensorStatistics& seen = calib.stats.at(meter.outputs()[k]);
    const double positive_share =
        std::max(0.0F, seen.max()) /
        std::max(seen.max() - seen.min(), std::numeric_limits<float>::min());
    const bool unseen_positive = positive_share < kMinPositiveShare;
    const bool keep_it = gain >= kKeepGainDb || unseen_positive;
    rows.push_back({{"node", conv},
                    {"sqnr_int8_db", round_to(all_int8[k], 0.01)},
                    {"sqnr_kept_fp32_db", round_to(kept_db, 0.01)},
                    {"gain_db", round_to(gain, 0.01)},
                    {"calibrated_min", seen.min()},
                    {"calibrated_max", seen.max()},
                    {"kept_fp32", keep_it}});
    if (gain >= kKeepGainDb) {
      keep[conv] = format_text(
          "final conv: keeping it FP32 raises its output SQNR from %.1f to %.1f dB (>= %.0f dB "
          "gain)",
          all_int8[k], kept_db, kKeepGainDb);
    } else if (unseen_positive) {
      keep[conv] = format_text(
          "final conv: calibration saw its output in [%.2f, %.2f], above 0 over %.1f%% of that "
          "range only; int8 would clip scores above those of the calibration frames",
          seen.min(), seen.max(), 100.0 * positive_share);
    }
    log("final conv " + conv +
        format_text(": SQNR %.1f dB int8, %.1f dB kept FP32, range [%.2f, %.2f]", all_int8[k],
                    kept_db, seen.min(), seen.max()) +
        (keep_it ? " -> kept FP32" : " -> int8"));
  }
  return rows;
}

}  // namespace yolo::runtime
