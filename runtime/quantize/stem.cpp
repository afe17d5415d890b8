// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/stem.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "runtime/quantize/text.h"

namespace yolo::runtime {

std::size_t choose_stem_prefix(const std::vector<double>& prefix_noise) {
  const double factor = std::pow(10.0, -kDecisionMarginDb / 10.0);
  std::size_t chosen = 0;
  for (std::size_t k = 1; k < prefix_noise.size(); ++k) {
    if (prefix_noise[k] < prefix_noise[chosen] * factor) chosen = k;
  }
  return chosen;
}

StemReport search_stem(const std::vector<ConvUnit>& units,
                       const std::vector<std::string>& final_convs, const NoiseMeter& meter,
                       KeepReasons& keep, const std::function<void(const std::string&)>& log) {
  StemReport report;
  double total_macs = 0;
  for (const auto& u : units) total_macs += u.macs;
  const std::set<std::string> before = kept_nodes(keep);
  const double base_noise = meter.noise_ratio(before);
  const std::set<std::string> finals(final_convs.begin(), final_convs.end());
  std::set<std::string> prefix = before;
  double share = 0;
  std::vector<double> prefix_noise = {base_noise};  // [k]: the first k convs kept
  std::vector<double> prefix_share = {0.0};
  for (std::size_t k = 0; k < units.size(); ++k) {
    const ConvUnit& unit = units[k];
    share += unit.macs / std::max(total_macs, 1.0);
    if (finals.count(unit.conv) || share > kMaxLayerMacShare) break;
    prefix.insert(unit.nodes.begin(), unit.nodes.end());
    const double n = meter.noise_ratio(prefix);
    report.prefixes.push_back({{"first_convs", k + 1},
                               {"through", unit.conv},
                               {"mac_share", round_to(share, 0.0001)},
                               {"noise_removed", round_to(1.0 - n / base_noise, 0.0001)}});
    prefix_noise.push_back(n);
    prefix_share.push_back(share);
  }
  const std::size_t best_k = choose_stem_prefix(prefix_noise);
  const double best_noise = prefix_noise[best_k];
  if (best_k > 0) {
    const double removed = 1.0 - best_noise / std::max(base_noise, 1e-30);
    const std::string why = format_text(
        "stem: keeping the first %zu conv(s) FP32 (%.1f%% of conv MACs) removes %.0f%% of the "
        "int8 noise at the final convs (of the prefixes within %.0f%% of the MACs, each longer "
        "one kept only where it lowers the noise by more than %.1f dB)",
        best_k, 100.0 * prefix_share[best_k], 100.0 * removed, 100.0 * kMaxLayerMacShare,
        kDecisionMarginDb);
    for (std::size_t k = 0; k < best_k; ++k) {
      for (const auto& n : units[k].nodes) keep[n] = why;
    }
    log(why);
  }
  log(format_text(
      "noise at the final convs: %.1f dB SQNR with every layer int8, %.1f dB with the kept ones "
      "FP32",
      -10.0 * std::log10(std::max(base_noise, 1e-30)),
      -10.0 * std::log10(std::max(best_noise, 1e-30))));
  report.noise = {{"final_conv_sqnr_db_all_int8", round_to(-10.0 * std::log10(base_noise), 0.01)},
                  {"final_conv_sqnr_db_kept", round_to(-10.0 * std::log10(best_noise), 0.01)}};
  return report;
}

}  // namespace yolo::runtime
