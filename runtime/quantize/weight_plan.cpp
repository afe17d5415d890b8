// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/weight_plan.h"

#include <algorithm>
#include <map>
#include <random>
#include <stdexcept>

#include "runtime/quantize/graph_index.h"
#include "runtime/quantize/onnx_proto.h"
#include "text/format.h"

namespace yolo::runtime {

const char* to_string(WeightRounding rounding) {
  return rounding == WeightRounding::kAdaptive ? "adaptive" : "nearest";
}

WeightRounding parse_weight_rounding(const std::string& text) {
  if (text == "nearest") return WeightRounding::kNearest;
  if (text == "adaptive") return WeightRounding::kAdaptive;
  throw std::invalid_argument("unknown weight rounding '" + text + "'; use nearest or adaptive");
}

namespace {

// One conv's patch matrices: from the even held frames, the odd ones, and all of them.
struct Grams {
  std::vector<Eigen::MatrixXd> even, odd, all;
};

// The Gram matrices of the convs in taps[first, last), from the held frames.
std::map<std::string, Grams> gather_grams(const std::vector<ConvTap>& taps, std::size_t first,
                                          std::size_t last, ObservingEngine& fp32,
                                          const Calibration& calib) {
  std::map<std::string, std::pair<PatchGram, PatchGram>> halves;
  for (std::size_t i = first; i < last; ++i) {
    halves.emplace(taps[i].conv,
                   std::pair(PatchGram(taps[i].geometry), PatchGram(taps[i].geometry)));
  }
  const auto frames = static_cast<std::int64_t>(calib.held_frames.size());
  const std::int64_t per_frame =
      (kRoundingSamples + frames - 1) / std::max<std::int64_t>(frames, 1);
  // One generator per batch, seeded alike: the same pixels on every run.
  std::mt19937 rng(11);
  std::vector<float> scratch;
  const std::span<float> input = fp32.input();
  for (std::size_t f = 0; f < calib.held_frames.size(); ++f) {
    std::copy(calib.held_frames[f].begin(), calib.held_frames[f].end(), input.begin());
    fp32.engine().run();
    for (std::size_t i = first; i < last; ++i) {
      auto& [even, odd] = halves.at(taps[i].conv);
      (f % 2 == 0 ? even : odd).add(tap_input(fp32, taps[i], scratch), per_frame, rng);
    }
  }
  std::map<std::string, Grams> out;
  for (auto& [conv, pair] : halves) {
    Grams g{pair.first.matrices(), pair.second.matrices(), {}};
    const double a = static_cast<double>(pair.first.samples());
    const double b = static_cast<double>(pair.second.samples());
    for (std::size_t k = 0; k < g.even.size(); ++k) {
      g.all.push_back((a * g.even[k] + b * g.odd[k]) / std::max(a + b, 1.0));
    }
    out.emplace(conv, std::move(g));
  }
  return out;
}

}  // namespace

WeightPhase plan_weights(const onnx::GraphProto& graph, const std::vector<ConvTap>& taps,
                         ObservingEngine& fp32, const Calibration& calib, WeightRounding rounding,
                         bool bias_correction, const std::function<void(const std::string&)>& log) {
  const GraphIndex index = index_graph(graph);
  WeightPhase phase;
  std::int64_t flipped_total = 0, weights_total = 0;
  std::size_t adapted = 0;
  double nearest_noise = 0, chosen_noise = 0, signal = 0;
  std::size_t next = 0;
  while (next < taps.size()) {
    // The next batch: as many convs as fit the memory budget (at least one).
    std::size_t end = next;
    std::int64_t held = 0;
    // Two halves per conv: the even and the odd held frames.
    while (
        end < taps.size() &&
        (end == next || held + 2 * PatchGram::footprint(taps[end].geometry) <= kRoundingMemory)) {
      held += 2 * PatchGram::footprint(taps[end].geometry);
      ++end;
    }
    std::map<std::string, Grams> grams;
    if (rounding == WeightRounding::kAdaptive) grams = gather_grams(taps, next, end, fp32, calib);
    for (std::size_t i = next; i < end; ++i) {
      const ConvTap& tap = taps[i];
      const std::vector<float> w = read_floats(*index.initializers.at(tap.weight));
      Int8Weights q = round_to_nearest(w, tap.geometry.out_channels);
      nlohmann::json row = {{"node", tap.conv}};
      if (rounding == WeightRounding::kAdaptive) {
        // Chosen on the even frames and judged on the odd ones: a layer whose rounding does not
        // hold on frames it was not chosen on (too few patches for its size) keeps round to
        // nearest; one whose does is chosen again on all of them.
        const Grams& gram = grams.at(tap.conv);
        Int8Weights trial = q;
        optimise_rounding(w, tap.geometry, gram.even, trial);
        const WeightError held_nearest = weight_error(w, tap.geometry, gram.odd, q);
        const WeightError held_trial = weight_error(w, tap.geometry, gram.odd, trial);
        const bool holds = held_trial.noise < held_nearest.noise;
        const WeightError before = weight_error(w, tap.geometry, gram.all, q);
        const std::int64_t flipped = holds ? optimise_rounding(w, tap.geometry, gram.all, q) : 0;
        const WeightError after = weight_error(w, tap.geometry, gram.all, q);
        row["sqnr_nearest_db"] = text::rounded(before.sqnr_db(), 2);
        row["sqnr_adaptive_db"] = text::rounded(after.sqnr_db(), 2);
        row["held_out_gain_db"] = text::rounded(held_trial.sqnr_db() - held_nearest.sqnr_db(), 2);
        row["rounding"] = holds ? "adaptive" : "nearest";
        row["flipped"] = flipped;
        flipped_total += flipped;
        adapted += holds ? 1 : 0;
        nearest_noise += before.noise;
        chosen_noise += after.noise;
        signal += before.signal;
      }
      weights_total += static_cast<std::int64_t>(w.size());
      if (bias_correction) {
        std::vector<float> shift =
            runtime::bias_correction(w, tap.geometry, calib.patch_means.at(tap.conv).means(), q);
        float largest = 0;
        for (const float s : shift) largest = std::max(largest, std::abs(s));
        row["bias_shift_max"] = text::rounded(largest, 5);
        phase.plan.bias_shift[tap.conv] = std::move(shift);
      }
      phase.plan.weights[tap.weight] = std::move(q);
      phase.report.push_back(std::move(row));
    }
    next = end;
  }
  if (rounding == WeightRounding::kAdaptive) {
    auto db = [&](double noise) { return 10.0 * std::log10(std::max(signal, 1e-300) / noise); };
    log(
        text::format("weights: adaptive rounding in %zu of %zu convs (the others' did not hold on "
                     "frames it was not chosen on) flipped %lld of %lld weights; conv output SQNR "
                     "on the held frames %.1f dB (round to nearest %.1f dB)",
                     adapted, taps.size(), static_cast<long long>(flipped_total),
                     static_cast<long long>(weights_total), db(chosen_noise), db(nearest_noise)));
  }
  if (bias_correction)
    log("weights: bias corrected for the mean shift of " + std::to_string(taps.size()) +
        " conv(s)");
  return phase;
}

}  // namespace yolo::runtime
