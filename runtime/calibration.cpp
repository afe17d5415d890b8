#include "runtime/calibration.h"

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
  }
  return "?";
}

CalibrationMethod parse_calibration_method(const std::string& text) {
  if (text == "minmax") return CalibrationMethod::kMinMax;
  if (text == "percentile") return CalibrationMethod::kPercentile;
  if (text == "entropy") return CalibrationMethod::kEntropy;
  throw std::invalid_argument("unknown calibration method '" + text +
                              "'; use minmax, percentile or entropy");
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
  if (histogram_.empty()) {
    histogram_.assign(kBins, 0.0);
    amax_ = amax;
    return;
  }
  // Old bins move to the new bin holding their centre: the histogram stays a faithful summary at
  // the new, coarser resolution.
  std::vector<double> rebinned(kBins, 0.0);
  const double old_width = static_cast<double>(amax_) / kBins;
  const double new_width = static_cast<double>(amax) / kBins;
  for (int i = 0; i < kBins; ++i) {
    if (histogram_[static_cast<std::size_t>(i)] == 0) continue;
    const auto j = std::min<std::int64_t>(
        static_cast<std::int64_t>((i + 0.5) * old_width / new_width), kBins - 1);
    rebinned[static_cast<std::size_t>(j)] += histogram_[static_cast<std::size_t>(i)];
  }
  histogram_ = std::move(rebinned);
  amax_ = amax;
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
  if (histogram_.empty() || amax > amax_) grow(std::max(amax, std::numeric_limits<float>::min()));
  const double per_bin = kBins / static_cast<double>(amax_);
  for (const float v : values) {
    if (!std::isfinite(v)) continue;
    const auto bin =
        std::min<std::int64_t>(static_cast<std::int64_t>(std::abs(v) * per_bin), kBins - 1);
    histogram_[static_cast<std::size_t>(bin)] += 1.0;
  }
  count_ += static_cast<std::int64_t>(values.size());
}

float TensorStatistics::percentile_threshold(double percentile) const {
  const double total = std::accumulate(histogram_.begin(), histogram_.end(), 0.0);
  const double target = total * percentile / 100.0;
  double sum = 0;
  for (int i = 0; i < kBins; ++i) {
    sum += histogram_[static_cast<std::size_t>(i)];
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
  double best_kl = std::numeric_limits<double>::infinity();
  int best_i = kBins;
  std::vector<double> p(kBins), q(kBins);
  for (int i = kLevels; i <= kBins; i += kStride) {
    std::copy(histogram_.begin(), histogram_.begin() + i, p.begin());
    p[static_cast<std::size_t>(i - 1)] +=
        std::accumulate(histogram_.begin() + i, histogram_.end(), 0.0);
    std::fill(q.begin(), q.begin() + i, 0.0);
    const double merged = static_cast<double>(i) / kLevels;
    for (int level = 0; level < kLevels; ++level) {
      const int start = static_cast<int>(level * merged);
      const int stop = level == kLevels - 1 ? i : static_cast<int>((level + 1) * merged);
      double sum = 0;
      int nonzero = 0;
      for (int k = start; k < stop; ++k) {
        sum += histogram_[static_cast<std::size_t>(k)];
        if (histogram_[static_cast<std::size_t>(k)] != 0) ++nonzero;
      }
      if (nonzero == 0) continue;
      for (int k = start; k < stop; ++k) {
        if (histogram_[static_cast<std::size_t>(k)] != 0) {
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

ActivationRange TensorStatistics::range(CalibrationMethod method, double percentile) const {
  ActivationRange full{std::min(min_, 0.0F), std::max(max_, 0.0F)};
  if (count_ == 0 || method == CalibrationMethod::kMinMax) return full;
  const float t = method == CalibrationMethod::kPercentile ? percentile_threshold(percentile)
                                                           : entropy_threshold();
  return {std::max(full.lo, -t), std::min(full.hi, t)};
}

}  // namespace yolo::runtime
