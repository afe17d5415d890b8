// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <vector>

namespace yolo::vision {

// Summary of a set of latency samples in milliseconds, as `yolo-edge bench` and the field log
// report them.
struct LatencyStats {
  std::size_t runs = 0;
  double min = 0, p25 = 0, p50 = 0, p75 = 0, p90 = 0, p95 = 0, p99 = 0, max = 0, mean = 0,
         stddev = 0;

  // Coefficient of variation: stddev / mean (0 when the mean is 0), how steady the runs were.
  double cv() const;
  // Interquartile range p75 - p25: the spread of the middle half, which outliers do not move.
  double iqr() const { return p75 - p25; }
};

// Percentiles by the nearest-rank method on the sorted samples (the same rule as the ONNX Runtime
// peer script, so the two columns compare like for like); stddev is the sample standard deviation
// (n - 1). Throws on an empty sample set.
LatencyStats summarize(std::vector<double> samples_ms);

}  // namespace yolo::vision
