// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/fp32_trade.h"

#include <algorithm>
#include <set>

#include "text/format.h"

namespace yolo::runtime {

namespace {

// The convs weighed: the first ones within kMaxLayerMacShare (before any final conv), then the
// attention convs after them, in graph order.
std::vector<const ConvUnit*> trade_candidates(const std::vector<ConvUnit>& units,
                                              const GraphRegions& regions, double all_macs) {
  const std::set<std::string> finals(regions.final_convs.begin(), regions.final_convs.end());
  std::vector<const ConvUnit*> candidates;
  double share = 0;
  auto unit = units.begin();
  for (; unit != units.end(); ++unit) {
    share += unit->macs / all_macs;
    if (finals.count(unit->conv) || share > kMaxLayerMacShare) break;
    candidates.push_back(&*unit);
  }
  for (; unit != units.end(); ++unit) {
    if (regions.attention_convs.count(unit->conv) && !finals.count(unit->conv)) {
      candidates.push_back(&*unit);
    }
  }
  return candidates;
}

}  // namespace

bool worth_fp32(double gain_db, double mac_share, double spent) {
  return gain_db >= kTradeGainDb && spent + mac_share <= kMaxTradeMacShare;
}

std::string trade_text(const Fp32Trade& t, const std::string& agreement_name) {
  std::string text = text::format("%+.2f ms (%.1f%% of conv MACs), %+.1f dB at the final convs",
                                  t.cost_ms, 100.0 * t.mac_share, t.gain_db);
  if (t.agreement_gain)
    text += text::format(", %s %+.3f", agreement_name.c_str(), *t.agreement_gain);
  return text;
}

TradeReport search_fp32_trades(const std::vector<ConvUnit>& units, const GraphRegions& regions,
                               const NoiseMeter& meter, KeepReasons& keep,
                               const std::function<void(const std::string&)>& log) {
  TradeReport report;
  const double all_macs = total_macs(units);
  const std::set<std::string> base = kept_nodes(keep);
  report.before = meter.measure(base);
  std::set<std::string> chosen = base;
  // What the frame already pays beyond the detection tail and the final convs (the convs kept
  // for channel spread): the trades share one budget with it.
  const std::set<std::string> finals(regions.final_convs.begin(), regions.final_convs.end());
  double spent = 0;
  for (const auto& unit : units) {
    if (base.count(unit.conv) && !finals.count(unit.conv)) spent += unit.macs / all_macs;
  }
  for (const ConvUnit* candidate : trade_candidates(units, regions, all_macs)) {
    const ConvUnit& unit = *candidate;
    std::set<std::string> with = base;
    with.insert(unit.nodes.begin(), unit.nodes.end());
    const Measurement m = meter.measure(with);
    Fp32Trade t;
    t.conv = unit.conv;
    t.gain_db = m.noise_db() - report.before.noise_db();
    t.mac_share = unit.macs / all_macs;
    t.cost_ms = m.frame_ms - report.before.frame_ms;
    if (m.agreement && report.before.agreement) {
      t.agreement_gain = *m.agreement - *report.before.agreement;
    }
    t.kept = worth_fp32(t.gain_db, t.mac_share, spent);
    const std::string text = trade_text(t, meter.agreement_name());
    log("FP32 " + unit.conv + " would cost " + text +
        (t.kept ? " -> kept FP32"
                : text::format(" -> int8 (FP32 only for >= %.0f dB within %.0f%% of the MACs "
                               "with the convs kept before it, %.1f%% so far)",
                               kTradeGainDb, 100.0 * kMaxTradeMacShare, 100.0 * spent)));
    if (t.kept) spent += t.mac_share;
    if (t.kept) {
      for (const auto& n : unit.nodes) {
        keep[n] = "worth its time: keeping it FP32 alone measured " + text;
      }
      chosen.insert(unit.nodes.begin(), unit.nodes.end());
    }
    report.trades.push_back(std::move(t));
  }
  report.chosen = chosen == base ? report.before : meter.measure(chosen);
  return report;
}

}  // namespace yolo::runtime
