// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace yolo::runtime {

// How an activation's quantization range is chosen from what calibration observed.
enum class CalibrationMethod {
  kMinMax,      // the observed minimum and maximum
  kPercentile,  // clip |x| at its 99.99th percentile
  kEntropy,     // clip |x| where the int8 histogram loses least information (KL, TensorRT style)
  kMse,         // the [lo, hi] with the least expected int8 error (rounding plus clipping)
};
// "minmax", "percentile", "entropy", "mse".
const char* to_string(CalibrationMethod method);
// Throws std::invalid_argument naming the accepted values.
CalibrationMethod parse_calibration_method(const std::string& text);

// A float range [lo, hi] with lo <= 0 <= hi.
struct ActivationRange {
  float lo = 0;
  float hi = 0;
};

// Per-tensor asymmetric int8: q = clamp(round(x / scale) + zero_point, -128, 127).
struct ActivationQuant {
  float scale = 1;
  std::int8_t zero_point = 0;
};
// The parameters that cover `range` (widened to include 0, so 0 is exact); an empty range gets
// scale 1 because DequantizeLinear needs a non-zero scale.
ActivationQuant activation_quant(ActivationRange range);

// Running statistics of one activation tensor over the calibration frames: its minimum and
// maximum, and histograms of the positive and of the negative values' magnitudes over [0, amax],
// re-binned as amax grows.
class TensorStatistics {
 public:
  static constexpr int kBins = 2048;

  void add(std::span<const float> values);
  std::int64_t count() const { return count_; }
  float min() const { return min_; }
  float max() const { return max_; }

  // The range `method` clips to, always within [min, max] widened to include 0. Percentile and
  // entropy choose a threshold T on |x| and clip to [-T, T] (TensorRT's symmetric calibration,
  // applied to an asymmetric range: a tensor that is never below -0.28, like a SiLU output, keeps
  // its exact minimum). Mse chooses lo and hi on their own sides.
  ActivationRange range(CalibrationMethod method, double percentile = 99.99) const;

 private:
  float percentile_threshold(double percentile) const;
  float entropy_threshold() const;
  ActivationRange mse_range() const;
  void grow(float amax);

  std::int64_t count_ = 0;
  float min_ = 0;
  float max_ = 0;
  // Upper edge of the histograms; bin i holds |x| in [i, i+1) * amax_ / kBins.
  float amax_ = 0;
  std::vector<double> positive_;
  std::vector<double> negative_;
  // positive_ + negative_: the |x| histogram percentile and entropy read.
  std::vector<double> magnitude() const;
};

}  // namespace yolo::runtime
