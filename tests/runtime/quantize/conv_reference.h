// SPDX-License-Identifier: Apache-2.0
#pragma once

// A plain 2-D convolution and random conv layers, to check the weight phase
// (runtime/quantize/conv_patches.h, runtime/quantize/weights.h) against what a conv computes.
#include <cstdint>
#include <random>
#include <vector>

#include "runtime/quantize/conv_patches.h"
#include "runtime/quantize/weights.h"

namespace yolo::runtime::quantize_test {

// NCHW input of batch 1.
struct Image {
  std::int64_t channels = 0, height = 0, width = 0;
  std::vector<float> values;
  ConvInput view() const { return {values, channels, height, width}; }
};

// out[o, y, x] = bias[o] + sum over the group's patch of w * x (zero padding); NCHW.
inline std::vector<double> conv2d(const Image& in, const ConvGeometry& g,
                                  const std::vector<double>& w, const std::vector<double>& bias) {
  const std::int64_t oh = g.out_height(in.height), ow = g.out_width(in.width);
  const std::int64_t per_group = g.in_channels / g.group;
  std::vector<double> out(static_cast<std::size_t>(g.out_channels * oh * ow));
  for (std::int64_t o = 0; o < g.out_channels; ++o) {
    const std::int64_t c0 = (o / g.group_outputs()) * per_group;
    for (std::int64_t y = 0; y < oh; ++y) {
      for (std::int64_t x = 0; x < ow; ++x) {
        double sum = bias.empty() ? 0.0 : bias[static_cast<std::size_t>(o)];
        std::size_t k = static_cast<std::size_t>(o * g.patch_size());
        for (std::int64_t c = c0; c < c0 + per_group; ++c) {
          for (std::int64_t ky = 0; ky < g.kernel_h; ++ky) {
            for (std::int64_t kx = 0; kx < g.kernel_w; ++kx, ++k) {
              const std::int64_t iy = y * g.stride_h + ky * g.dilation_h - g.pad_top;
              const std::int64_t ix = x * g.stride_w + kx * g.dilation_w - g.pad_left;
              if (iy < 0 || iy >= in.height || ix < 0 || ix >= in.width) continue;
              sum +=
                  w[k] * in.values[static_cast<std::size_t>((c * in.height + iy) * in.width + ix)];
            }
          }
        }
        out[static_cast<std::size_t>((o * oh + y) * ow + x)] = sum;
      }
    }
  }
  return out;
}

inline std::vector<double> as_doubles(const std::vector<float>& v) {
  return {v.begin(), v.end()};
}

// The float weights int8 `q` stands for.
inline std::vector<double> dequantized(const Int8Weights& q, std::int64_t out_channels) {
  const std::size_t per = q.values.size() / static_cast<std::size_t>(out_channels);
  std::vector<double> w(q.values.size());
  for (std::size_t i = 0; i < w.size(); ++i) {
    w[i] = static_cast<double>(q.values[i]) * static_cast<double>(q.scales[i / per]);
  }
  return w;
}

inline ConvGeometry geometry(std::int64_t out, std::int64_t in, std::int64_t kernel,
                             std::int64_t stride, std::int64_t pad, std::int64_t group = 1) {
  ConvGeometry g;
  g.out_channels = out;
  g.in_channels = in;
  g.group = group;
  g.kernel_h = g.kernel_w = kernel;
  g.stride_h = g.stride_w = stride;
  g.pad_top = g.pad_left = g.pad_bottom = g.pad_right = pad;
  return g;
}

}  // namespace yolo::runtime::quantize_test
