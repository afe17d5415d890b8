// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/conv_patches.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "runtime/quantize/error.h"
#include "runtime/quantize/onnx_proto.h"

namespace yolo::runtime {

namespace {

std::vector<std::int64_t> ints(const onnx::NodeProto& node, const char* name,
                               std::vector<std::int64_t> fallback) {
  const onnx::AttributeProto* a = find_attr(node, name);
  if (!a) return fallback;
  return {a->ints().begin(), a->ints().end()};
}

std::int64_t out_size(std::int64_t size, std::int64_t kernel, std::int64_t stride,
                      std::int64_t dilation, std::int64_t pads) {
  return (size + pads - dilation * (kernel - 1) - 1) / stride + 1;
}

// The first and one-past-last output index o whose input index o * stride + offset lies in
// [0, size).
std::pair<std::int64_t, std::int64_t> valid_outputs(std::int64_t outputs, std::int64_t stride,
                                                    std::int64_t offset, std::int64_t size) {
  std::int64_t first = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
  std::int64_t last = size - 1 - offset < 0 ? -1 : (size - 1 - offset) / stride;
  return {std::min(first, outputs), std::clamp<std::int64_t>(last + 1, first, outputs)};
}

}  // namespace

std::int64_t ConvGeometry::out_height(std::int64_t height) const {
  return out_size(height, kernel_h, stride_h, dilation_h, pad_top + pad_bottom);
}

std::int64_t ConvGeometry::out_width(std::int64_t width) const {
  return out_size(width, kernel_w, stride_w, dilation_w, pad_left + pad_right);
}

ConvGeometry conv_geometry(const onnx::NodeProto& conv, const onnx::TensorProto& weight) {
  if (weight.dims_size() != 4) {
    throw QuantizeError("conv " + conv.name() + ": a weight of rank " +
                        std::to_string(weight.dims_size()) + " is not a 2-D conv's");
  }
  if (const auto* pad = find_attr(conv, "auto_pad"); pad && pad->s() != "NOTSET") {
    throw QuantizeError("conv " + conv.name() + ": auto_pad " + pad->s() + " is not supported");
  }
  ConvGeometry g;
  g.out_channels = weight.dims(0);
  g.kernel_h = weight.dims(2);
  g.kernel_w = weight.dims(3);
  if (const auto* a = find_attr(conv, "group")) g.group = std::max<std::int64_t>(a->i(), 1);
  g.in_channels = weight.dims(1) * g.group;
  const auto strides = ints(conv, "strides", {1, 1});
  const auto dilations = ints(conv, "dilations", {1, 1});
  const auto pads = ints(conv, "pads", {0, 0, 0, 0});
  if (strides.size() != 2 || dilations.size() != 2 || pads.size() != 4) {
    throw QuantizeError("conv " + conv.name() + ": strides, dilations or pads are not 2-D");
  }
  g.stride_h = strides[0];
  g.stride_w = strides[1];
  g.dilation_h = dilations[0];
  g.dilation_w = dilations[1];
  g.pad_top = pads[0];
  g.pad_left = pads[1];
  g.pad_bottom = pads[2];
  g.pad_right = pads[3];
  return g;
}

PatchMeans::PatchMeans(const ConvGeometry& g)
    : g_(g), sums_(static_cast<std::size_t>(g.in_channels * g.kernel_h * g.kernel_w), 0.0) {}

void ChannelPeaks::add(const ConvInput& in) {
  const auto channels = static_cast<std::size_t>(in.channels);
  if (peaks_.size() != channels) peaks_.assign(channels, 0.0F);
  const auto plane = static_cast<std::size_t>(in.height * in.width);
  for (std::size_t c = 0; c < channels; ++c) {
    float& peak = peaks_[c];
    for (const float v : in.values.subspan(c * plane, plane)) peak = std::max(peak, std::abs(v));
  }
}

double ChannelPeaks::spread() const {
  if (peaks_.empty()) return 1.0;
  std::vector<float> sorted = peaks_;
  const auto middle = sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2);
  std::nth_element(sorted.begin(), middle, sorted.end());
  const double median = *middle;
  const double largest = *std::max_element(peaks_.begin(), peaks_.end());
  if (median <= 0) return largest > 0 ? std::numeric_limits<double>::infinity() : 1.0;
  return largest / median;
}

void PatchMeans::add(const ConvInput& in) {
  const std::int64_t oh = g_.out_height(in.height), ow = g_.out_width(in.width);
  const std::int64_t kk = g_.kernel_h * g_.kernel_w;
  for (std::int64_t c = 0; c < g_.in_channels; ++c) {
    const float* plane = in.values.data() + c * in.height * in.width;
    for (std::int64_t ky = 0; ky < g_.kernel_h; ++ky) {
      const std::int64_t dy = ky * g_.dilation_h - g_.pad_top;
      const auto [y0, y1] = valid_outputs(oh, g_.stride_h, dy, in.height);
      for (std::int64_t kx = 0; kx < g_.kernel_w; ++kx) {
        const std::int64_t dx = kx * g_.dilation_w - g_.pad_left;
        const auto [x0, x1] = valid_outputs(ow, g_.stride_w, dx, in.width);
        double sum = 0;
        for (std::int64_t y = y0; y < y1; ++y) {
          const float* row = plane + (y * g_.stride_h + dy) * in.width + dx;
          for (std::int64_t x = x0; x < x1; ++x) sum += row[x * g_.stride_w];
        }
        sums_[static_cast<std::size_t>(c * kk + ky * g_.kernel_w + kx)] += sum;
      }
    }
  }
  pixels_ += static_cast<double>(oh * ow);
}

std::vector<double> PatchMeans::means() const {
  std::vector<double> m(sums_.size(), 0.0);
  if (pixels_ <= 0) return m;
  for (std::size_t i = 0; i < m.size(); ++i) m[i] = sums_[i] / pixels_;
  return m;
}

PatchGram::PatchGram(const ConvGeometry& g) : g_(g) {
  const auto k = static_cast<Eigen::Index>(g.patch_size());
  sums_.assign(static_cast<std::size_t>(g.group), Eigen::MatrixXd::Zero(k, k));
}

std::int64_t PatchGram::footprint(const ConvGeometry& g) {
  return g.group * g.patch_size() * g.patch_size();
}

void PatchGram::add(const ConvInput& in, std::int64_t samples, std::mt19937& rng) {
  const std::int64_t oh = g_.out_height(in.height), ow = g_.out_width(in.width);
  std::vector<std::int64_t> pixels(static_cast<std::size_t>(oh * ow));
  std::iota(pixels.begin(), pixels.end(), std::int64_t{0});
  if (samples < oh * ow) {
    // A partial Fisher-Yates shuffle: the first `samples` are a uniform draw without repeats.
    for (std::int64_t i = 0; i < samples; ++i) {
      std::uniform_int_distribution<std::int64_t> pick(i, oh * ow - 1);
      std::swap(pixels[static_cast<std::size_t>(i)], pixels[static_cast<std::size_t>(pick(rng))]);
    }
    pixels.resize(static_cast<std::size_t>(samples));
  }
  const std::int64_t per_group = g_.in_channels / g_.group;
  const std::int64_t k = g_.patch_size();
  Eigen::MatrixXf patches(static_cast<Eigen::Index>(pixels.size()), static_cast<Eigen::Index>(k));
  for (std::int64_t grp = 0; grp < g_.group; ++grp) {
    for (std::size_t s = 0; s < pixels.size(); ++s) {
      const std::int64_t oy = pixels[s] / ow, ox = pixels[s] % ow;
      Eigen::Index col = 0;
      for (std::int64_t c = grp * per_group; c < (grp + 1) * per_group; ++c) {
        const float* plane = in.values.data() + c * in.height * in.width;
        for (std::int64_t ky = 0; ky < g_.kernel_h; ++ky) {
          const std::int64_t y = oy * g_.stride_h + ky * g_.dilation_h - g_.pad_top;
          for (std::int64_t kx = 0; kx < g_.kernel_w; ++kx, ++col) {
            const std::int64_t x = ox * g_.stride_w + kx * g_.dilation_w - g_.pad_left;
            const bool inside = y >= 0 && y < in.height && x >= 0 && x < in.width;
            patches(static_cast<Eigen::Index>(s), col) = inside ? plane[y * in.width + x] : 0.0F;
          }
        }
      }
    }
    Eigen::MatrixXf gram =
        Eigen::MatrixXf::Zero(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(k));
    gram.selfadjointView<Eigen::Lower>().rankUpdate(patches.transpose());
    sums_[static_cast<std::size_t>(grp)] += gram.cast<double>();
  }
  samples_ += static_cast<std::int64_t>(pixels.size());
}

std::vector<Eigen::MatrixXd> PatchGram::matrices() const {
  std::vector<Eigen::MatrixXd> out;
  for (const auto& sum : sums_) {
    Eigen::MatrixXd h = sum.selfadjointView<Eigen::Lower>();
    if (samples_ > 0) h /= static_cast<double>(samples_);
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace yolo::runtime
