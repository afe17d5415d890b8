// SPDX-License-Identifier: Apache-2.0
#pragma once

// What a conv reads, gathered from the calibration frames: the mean of every element of its input
// patches (for bias correction) and their second moments (for weight rounding). A patch is what
// one output pixel of one group reads: in_channels / group x kernel_h x kernel_w input values,
// zero where the kernel overhangs the padding.

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include <Eigen/Core>

#include "runtime/engine/tensor.h"

namespace yolo::runtime {

struct ConvGeometry {
  std::int64_t out_channels = 0;
  std::int64_t in_channels = 0;
  std::int64_t group = 1;
  std::int64_t kernel_h = 1, kernel_w = 1;
  std::int64_t stride_h = 1, stride_w = 1;
  std::int64_t dilation_h = 1, dilation_w = 1;
  std::int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;

  // Elements of one group's patch: in_channels / group * kernel_h * kernel_w.
  std::int64_t patch_size() const { return in_channels / group * kernel_h * kernel_w; }
  // Output channels per group.
  std::int64_t group_outputs() const { return out_channels / group; }
  // The output size for an input of `height` x `width`.
  std::int64_t out_height(std::int64_t height) const;
  std::int64_t out_width(std::int64_t width) const;
};

// A 2-D Conv's geometry from its attributes and weight ([O, I/group, kh, kw]). Throws QuantizeError
// for a conv that is not 2-D or has auto_pad other than NOTSET.
ConvGeometry conv_geometry(const onnx::NodeProto& conv, const onnx::TensorProto& weight);

// One frame's input to a conv: NCHW floats of batch 1.
struct ConvInput {
  std::span<const float> values;
  std::int64_t channels = 0, height = 0, width = 0;
};

// Per channel of a conv input, the largest |value| over every frame: how unequal the channels'
// ranges are, which one per-tensor int8 scale has to cover.
class ChannelPeaks {
 public:
  void add(const ConvInput& input);
  const std::vector<float>& peaks() const { return peaks_; }
  // The largest channel's peak over the median channel's (1 when all are equal; infinity when
  // at least half the channels stayed 0): a per-tensor int8 scale gives the median channel about
  // 255 / spread() of its steps.
  double spread() const;

 private:
  std::vector<float> peaks_;
};

// The mean of every patch element (channel, ky, kx) over every output pixel of every frame, for
// all in_channels (a group's patch reads its own channels).
class PatchMeans {
 public:
  explicit PatchMeans(const ConvGeometry& g);
  void add(const ConvInput& input);
  // [in_channels * kernel_h * kernel_w], channel-major like the weights; zeros before add().
  std::vector<double> means() const;

 private:
  ConvGeometry g_;
  std::vector<double> sums_;
  double pixels_ = 0;
};

// E[p p^T] of each group's patches over sampled output pixels: the matrix whose quadratic form
// d^T H d is the mean squared output error a weight error d causes.
class PatchGram {
 public:
  explicit PatchGram(const ConvGeometry& g);
  // Adds at most `samples` output pixels of this frame (all of them when fewer), drawn by `rng`.
  void add(const ConvInput& input, std::int64_t samples, std::mt19937& rng);
  // Per group, patch_size() x patch_size(); zeros before add().
  std::vector<Eigen::MatrixXd> matrices() const;
  std::int64_t samples() const { return samples_; }
  // Doubles held: what gathering this conv costs in memory.
  static std::int64_t footprint(const ConvGeometry& g);

 private:
  ConvGeometry g_;
  std::vector<Eigen::MatrixXd> sums_;
  std::int64_t samples_ = 0;
};

}  // namespace yolo::runtime
