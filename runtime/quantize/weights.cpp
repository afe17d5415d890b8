// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/weights.h"

#include <algorithm>
#include <cmath>

namespace yolo::runtime {

namespace {

// The weight error vector of one output channel: q * s - w.
Eigen::VectorXd channel_error(std::span<const float> weights, const Int8Weights& q, std::int64_t o,
                              std::int64_t k) {
  Eigen::VectorXd d(static_cast<Eigen::Index>(k));
  const float s = q.scales[static_cast<std::size_t>(o)];
  for (std::int64_t i = 0; i < k; ++i) {
    const auto at = static_cast<std::size_t>(o * k + i);
    d(static_cast<Eigen::Index>(i)) =
        static_cast<double>(q.values[at]) * s - static_cast<double>(weights[at]);
  }
  return d;
}

}  // namespace

Int8Weights round_to_nearest(std::span<const float> weights, std::int64_t out_channels) {
  Int8Weights q;
  q.scales.resize(static_cast<std::size_t>(out_channels));
  q.values.resize(weights.size());
  const std::size_t per = weights.size() / static_cast<std::size_t>(out_channels);
  for (std::size_t c = 0; c < q.scales.size(); ++c) {
    float amax = 0;
    for (std::size_t i = 0; i < per; ++i) amax = std::max(amax, std::abs(weights[c * per + i]));
    q.scales[c] = amax > 0 ? amax / 127.0F : 1.0F;
    for (std::size_t i = 0; i < per; ++i) {
      const float v = std::nearbyint(weights[c * per + i] / q.scales[c]);
      q.values[c * per + i] = static_cast<std::int8_t>(std::clamp(v, -127.0F, 127.0F));
    }
  }
  return q;
}

std::int64_t optimise_rounding(std::span<const float> weights, const ConvGeometry& g,
                               const std::vector<Eigen::MatrixXd>& gram, Int8Weights& q) {
  // Sweeps over all weights of a channel; a sweep that flips nothing ends it early.
  constexpr int kMaxSweeps = 8;
  const std::int64_t k = g.patch_size();
  std::int64_t flipped = 0;
  for (std::int64_t o = 0; o < g.out_channels; ++o) {
    const Eigen::MatrixXd& h = gram[static_cast<std::size_t>(o / g.group_outputs())];
    const double s = q.scales[static_cast<std::size_t>(o)];
    Eigen::VectorXd d = channel_error(weights, q, o, k);
    Eigen::VectorXd hd = h * d;  // the error's gradient (halved), kept current on every flip
    for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
      std::int64_t changes = 0;
      for (std::int64_t i = 0; i < k; ++i) {
        const auto at = static_cast<std::size_t>(o * k + i);
        const auto ii = static_cast<Eigen::Index>(i);
        const double v = static_cast<double>(weights[at]) / s;
        const double current = q.values[at];
        // The other candidate: the integer on the other side of v.
        const double other = current > v ? std::floor(v) : std::ceil(v);
        if (other == current || other < -127 || other > 127) continue;
        const double step = (other - current) * s;
        // d^T H d after d_i += step, minus before.
        const double delta = 2 * step * hd(ii) + step * step * h(ii, ii);
        if (delta >= -1e-15 * std::max(1.0, std::abs(d.dot(hd)))) continue;
        q.values[at] = static_cast<std::int8_t>(other);
        d(ii) += step;
        hd += step * h.col(ii);
        ++changes;
      }
      flipped += changes;
      if (changes == 0) break;
    }
  }
  return flipped;
}

double WeightError::sqnr_db() const {
  if (noise <= 0) return 200.0;
  return 10.0 * std::log10(std::max(signal, 1e-300) / noise);
}

WeightError weight_error(std::span<const float> weights, const ConvGeometry& g,
                         const std::vector<Eigen::MatrixXd>& gram, const Int8Weights& q) {
  const std::int64_t k = g.patch_size();
  WeightError e;
  for (std::int64_t o = 0; o < g.out_channels; ++o) {
    const Eigen::MatrixXd& h = gram[static_cast<std::size_t>(o / g.group_outputs())];
    const Eigen::VectorXd d = channel_error(weights, q, o, k);
    Eigen::VectorXd w(static_cast<Eigen::Index>(k));
    for (std::int64_t i = 0; i < k; ++i) {
      w(static_cast<Eigen::Index>(i)) = weights[static_cast<std::size_t>(o * k + i)];
    }
    e.noise += d.dot(h * d);
    e.signal += w.dot(h * w);
  }
  return e;
}

std::vector<float> bias_correction(std::span<const float> weights, const ConvGeometry& g,
                                   const std::vector<double>& means, const Int8Weights& q) {
  const std::int64_t k = g.patch_size();
  // A group's patch starts at its first input channel's means.
  const std::int64_t per_group_means = k;
  std::vector<float> shift(static_cast<std::size_t>(g.out_channels));
  for (std::int64_t o = 0; o < g.out_channels; ++o) {
    const std::int64_t first = (o / g.group_outputs()) * per_group_means;
    const Eigen::VectorXd d = channel_error(weights, q, o, k);
    double mean_error = 0;
    for (std::int64_t i = 0; i < k; ++i) {
      mean_error += d(static_cast<Eigen::Index>(i)) * means[static_cast<std::size_t>(first + i)];
    }
    shift[static_cast<std::size_t>(o)] = static_cast<float>(-mean_error);
  }
  return shift;
}

}  // namespace yolo::runtime
