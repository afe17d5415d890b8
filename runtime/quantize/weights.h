// SPDX-License-Identifier: Apache-2.0
#pragma once

// A conv's int8 weights: symmetric per output channel (scale max|w_o| / 127), each weight rounded
// to nearest, or up or down as minimises the conv's output error (AdaRound's idea, solved per
// layer); and the bias correction that cancels the mean output shift the rounding leaves.

#include <cstdint>
#include <span>
#include <vector>

#include <Eigen/Core>

#include "runtime/quantize/conv_patches.h"

namespace yolo::runtime {

struct Int8Weights {
  // [out_channels, patch_size] in the weight's own order.
  std::vector<std::int8_t> values;
  std::vector<float> scales;
};

// Round to nearest, clamped to [-127, 127]; an all-zero channel gets scale 1.
Int8Weights round_to_nearest(std::span<const float> weights, std::int64_t out_channels);

// Re-rounds each weight of `q` to the integer below or above w / scale (never further) so that,
// per output channel, the mean squared output error over the conv's patches, d^T H d with d the
// weight error and H its group's PatchGram matrix, is as small as coordinate descent from
// round-to-nearest gets it (each flip accepted only when it lowers the error, so it never ends
// above round-to-nearest). Returns the number of weights rounded the other way.
std::int64_t optimise_rounding(std::span<const float> weights, const ConvGeometry& g,
                               const std::vector<Eigen::MatrixXd>& gram, Int8Weights& q);

// The mean squared output error of `q` (d^T H d summed over channels) and the mean squared
// output (w^T H w), per conv: their ratio is the weights' own noise-to-signal.
struct WeightError {
  double noise = 0;
  double signal = 0;
  double sqnr_db() const;
};
WeightError weight_error(std::span<const float> weights, const ConvGeometry& g,
                         const std::vector<Eigen::MatrixXd>& gram, const Int8Weights& q);

// Per output channel, what to add to the bias so that the mean output over the calibration
// patches is FP32's: -sum_k (q_k s - w_k) E[p_k], with `means` from PatchMeans.
std::vector<float> bias_correction(std::span<const float> weights, const ConvGeometry& g,
                                   const std::vector<double>& means, const Int8Weights& q);

}  // namespace yolo::runtime
