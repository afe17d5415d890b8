// SPDX-License-Identifier: Apache-2.0
#include "vision/latency_stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace yolo::vision {

LatencyStats summarize(std::vector<double> samples_ms) {
  if (samples_ms.empty()) throw std::invalid_argument("no latency samples to summarize");
  std::sort(samples_ms.begin(), samples_ms.end());
  const std::size_t n = samples_ms.size();
  auto rank = [&](double p) {
    return samples_ms[std::min(n - 1, static_cast<std::size_t>(std::floor(p * n)))];
  };
  LatencyStats s;
  s.runs = n;
  s.min = samples_ms.front();
  s.max = samples_ms.back();
  s.p25 = rank(0.25);
  s.p50 = rank(0.50);
  s.p75 = rank(0.75);
  s.p90 = rank(0.90);
  s.p95 = rank(0.95);
  s.p99 = rank(0.99);
  s.mean = std::accumulate(samples_ms.begin(), samples_ms.end(), 0.0) / static_cast<double>(n);
  double var = 0;
  for (double v : samples_ms) var += (v - s.mean) * (v - s.mean);
  s.stddev = n > 1 ? std::sqrt(var / static_cast<double>(n - 1)) : 0.0;
  return s;
}

double LatencyStats::cv() const {
  return mean != 0 ? stddev / mean : 0.0;
}

}  // namespace yolo::vision
