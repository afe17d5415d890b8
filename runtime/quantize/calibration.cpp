// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/calibration.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace yolo::runtime {

const char* to_string(CalibrationMethod method) {
  switch (method) {
    case CalibrationMethod::kMinMax:
      return "minmax";
    case CalibrationMethod::kPercentile:
      return "percentile";
    case CalibrationMethod::kEntropy:
      return "entropy";
    case CalibrationMethod::kMse:
      return "mse";
  }
  return "?";
}

CalibrationMethod parse_calibration_method(const std::string& text) {
  if (text == "minmax") return CalibrationMethod::kMinMax;
  if (text == "percentile") return CalibrationMethod::kPercentile;
  if (text == "entropy") return CalibrationMethod::kEntropy;
  if (text == "mse") return CalibrationMethod::kMse;
  throw std::invalid_argument("unknown calibration method '" + text +
                              "'; use minmax, percentile, entropy or mse");
}

ActivationQuant activation_quant(ActivationRange range) {
  const float lo = std::min(range.lo, 0.0F);
  const float hi = std::max(range.hi, 0.0F);
  if (!(hi - lo > 0) || !std::isfinite(hi - lo)) return {};
  ActivationQuant q;
  q.scale = (hi - lo) / 255.0F;
  const float zp = std::nearbyint(-128.0F - lo / q.scale);
  q.zero_point = static_cast<std::int8_t>(std::clamp(zp, -128.0F, 127.0F));
  return q;
}

void TensorStatistics::grow(float amax) {
  if (positive_.empty()) {
    positive_.assign(kBins, 0.0);
    negative_.assign(kBins, 0.0);
    amax_ = amax;
    return;
  }
  // Old bins move to the new bin holding their centre: the histograms stay a faithful summary at
  // the new, coarser resolution.
  const double old_width = static_cast<double>(amax_) / kBins;
  const double new_width = static_cast<double>(amax) / kBins;
  for (auto* histogram : {&positive_, &negative_}) {
    std::vector<double> rebinned(kBins, 0.0);
    for (int i = 0; i < kBins; ++i) {
      if ((*histogram)[static_cast<std::size_t>(i)] == 0) continue;
      const auto j = std::min<std::int64_t>(
          static_cast<std::int64_t>((i + 0.5) * old_width / new_width), kBins - 1);
      rebinned[static_cast<std::size_t>(j)] += (*histogram)[static_cast<std::size_t>(i)];
    }
    *histogram = std::move(rebinned);
  }
  amax_ = amax;
}

std::vector<double> TensorStatistics::magnitude() const {
  std::vector<double> sum(positive_.size());
  for (std::size_t i = 0; i < sum.size(); ++i) sum[i] = positive_[i] + negative_[i];
  return sum;
}

void TensorStatistics::add(std::span<const float> values) {
  if (values.empty()) return;
  float lo = std::numeric_limits<float>::infinity();
  float hi = -lo;
  for (const float v : values) {
    if (!std::isfinite(v)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (lo > hi) return;  // nothing finite
  if (count_ == 0) {
    min_ = lo;
    max_ = hi;
  } else {
    min_ = std::min(min_, lo);
    max_ = std::max(max_, hi);
  }
  const float amax = std::max(std::abs(lo), std::abs(hi));
  if (positive_.empty() || amax > amax_) grow(std::max(amax, std::numeric_limits<float>::min()));
  const double per_bin = kBins / static_cast<double>(amax_);
  for (const float v : values) {
    if (!std::isfinite(v)) continue;
    const auto bin =
        std::min<std::int64_t>(static_cast<std::int64_t>(std::abs(v) * per_bin), kBins - 1);
    (v < 0 ? negative_ : positive_)[static_cast<std::size_t>(bin)] += 1.0;
  }
  count_ += static_cast<std::int64_t>(values.size());
}

float TensorStatistics::percentile_threshold(double percentile) const {
  const std::vector<double> histogram = magnitude();
  const double total = std::accumulate(histogram.begin(), histogram.end(), 0.0);
  const double target = total * percentile / 100.0;
  double sum = 0;
  for (int i = 0; i < kBins; ++i) {
    sum += histogram[static_cast<std::size_t>(i)];
    if (sum >= target) return amax_ * static_cast<float>(i + 1) / kBins;
  }
  return amax_;
}

float TensorStatistics::entropy_threshold() const {
  // For each candidate threshold (a number of bins i), P is the histogram cut at i with the
  // clipped tail added to its last bin, Q is P squeezed into 128 levels (the magnitudes of int8)
  // and spread back over P's non-empty bins; the threshold minimising KL(P || Q) wins.
  constexpr int kLevels = 128;
  constexpr int kStride = 16;
  const std::vector<double> histogram = magnitude();
  double best_kl = std::numeric_limits<double>::infinity();
  int best_i = kBins;
  std::vector<double> p(kBins), q(kBins);
  for (int i = kLevels; i <= kBins; i += kStride) {
    std::copy(histogram.begin(), histogram.begin() + i, p.begin());
    p[static_cast<std::size_t>(i - 1)] +=
        std::accumulate(histogram.begin() + i, histogram.end(), 0.0);
    std::fill(q.begin(), q.begin() + i, 0.0);
    const double merged = static_cast<double>(i) / kLevels;
    for (int level = 0; level < kLevels; ++level) {
      const int start = static_cast<int>(level * merged);
      const int stop = level == kLevels - 1 ? i : static_cast<int>((level + 1) * merged);
      double sum = 0;
      int nonzero = 0;
      for (int k = start; k < stop; ++k) {
        sum += histogram[static_cast<std::size_t>(k)];
        if (histogram[static_cast<std::size_t>(k)] != 0) ++nonzero;
      }
      if (nonzero == 0) continue;
      for (int k = start; k < stop; ++k) {
        if (histogram[static_cast<std::size_t>(k)] != 0) {
          q[static_cast<std::size_t>(k)] = sum / nonzero;
        }
      }
    }
    const double p_total = std::accumulate(p.begin(), p.begin() + i, 0.0);
    const double q_total = std::accumulate(q.begin(), q.begin() + i, 0.0);
    if (p_total <= 0 || q_total <= 0) continue;
    double kl = 0;
    for (int k = 0; k < i; ++k) {
      const double pk = p[static_cast<std::size_t>(k)] / p_total;
      if (pk == 0) continue;
      // The tail added to P's last bin may land where Q is empty: smooth it instead of infinity.
      const double qk = std::max(q[static_cast<std::size_t>(k)] / q_total, 1e-12);
      kl += pk * std::log(pk / qk);
    }
    if (kl < best_kl) {
      best_kl = kl;
      best_i = i;
    }
  }
  return amax_ * static_cast<float>(best_i) / kBins;
}

ActivationRange TensorStatistics::mse_range() const {
  // Prefix sums over each side's bins (value = bin centre): the clipping error beyond a threshold
  // T is sum c (x - T)^2 = S2 - 2 T S1 + T^2 S0 over the bins past T, in O(1) per candidate.
  const double width = static_cast<double>(amax_) / kBins;
  struct Side {
    std::vector<double> s0, s1, s2;  // suffix sums from bin i to the end
    double extreme = 0;              // the observed |min| or max
  };
  auto side = [&](const std::vector<double>& h, double extreme) {
    Side s{std::vector<double>(kBins + 1), std::vector<double>(kBins + 1),
           std::vector<double>(kBins + 1), extreme};
    for (int i = kBins - 1; i >= 0; --i) {
      const auto k = static_cast<std::size_t>(i);
      const double x = (i + 0.5) * width;
      s.s0[k] = s.s0[k + 1] + h[k];
      s.s1[k] = s.s1[k + 1] + h[k] * x;
      s.s2[k] = s.s2[k + 1] + h[k] * x * x;
    }
    return s;
  };
  const Side pos = side(positive_, std::max(max_, 0.0F));
  const Side neg = side(negative_, std::max(-min_, 0.0F));
  const double total = pos.s0[0] + neg.s0[0];
  // Clipping error of one side at threshold t (the bins wholly above t are clipped to t).
  auto clipped = [&](const Side& s, double t) {
    const auto first = static_cast<std::size_t>(std::clamp(std::ceil(t / width), 0.0, 1.0 * kBins));
    return s.s2[first] - 2 * t * s.s1[first] + t * t * s.s0[first];
  };
  auto error = [&](double lo, double hi) {
    const double step = (hi + lo) / 255.0;
    return total * step * step / 12.0 + clipped(pos, hi) + clipped(neg, lo);
  };
  // Candidates: every 8th bin edge up to the observed extreme on each side, one side at a time
  // (the other fixed), twice: the error is nearly separable, so this settles.
  auto candidates = [&](double extreme) {
    std::vector<double> c;
    for (int i = 8; i * width < extreme; i += 8) c.push_back(i * width);
    c.push_back(extreme);
    return c;
  };
  const std::vector<double> hi_candidates = candidates(pos.extreme);
  const std::vector<double> lo_candidates = candidates(neg.extreme);
  double lo = neg.extreme;
  double hi = pos.extreme;
  for (int round = 0; round < 2; ++round) {
    double best = error(lo, hi);
    for (const double h : hi_candidates) {
      if (const double e = error(lo, h); e < best) best = e, hi = h;
    }
    for (const double l : lo_candidates) {
      if (const double e = error(l, hi); e < best) best = e, lo = l;
    }
  }
  return {static_cast<float>(-lo), static_cast<float>(hi)};
}

ActivationRange TensorStatistics::range(CalibrationMethod method, double percentile) const {
  ActivationRange full{std::min(min_, 0.0F), std::max(max_, 0.0F)};
  if (count_ == 0 || method == CalibrationMethod::kMinMax) return full;
  if (method == CalibrationMethod::kMse) {
    const ActivationRange r = mse_range();
    return {std::max(full.lo, r.lo), std::min(full.hi, r.hi)};
  }
  const float t = method == CalibrationMethod::kPercentile ? percentile_threshold(percentile)
                                                           : entropy_threshold();
  return {std::max(full.lo, -t), std::min(full.hi, t)};
}

}  // namespace yolo::runtime
