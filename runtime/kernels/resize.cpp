// SPDX-License-Identifier: Apache-2.0
#include "runtime/kernels/resize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "runtime/kernels/detail.h"

namespace yolo::runtime::kernels {

using detail::fail;

CoordinateTransform coordinate_transform_from_string(std::string_view mode) {
  if (mode == "half_pixel") return CoordinateTransform::kHalfPixel;
  if (mode == "asymmetric") return CoordinateTransform::kAsymmetric;
  if (mode == "align_corners") return CoordinateTransform::kAlignCorners;
  if (mode == "pytorch_half_pixel") return CoordinateTransform::kPytorchHalfPixel;
  if (mode == "tf_half_pixel_for_nn") return CoordinateTransform::kTfHalfPixelForNn;
  fail("Resize", "unsupported coordinate_transformation_mode '" + std::string(mode) +
                     "' for nearest (half_pixel, asymmetric, align_corners, pytorch_half_pixel "
                     "or tf_half_pixel_for_nn)");
}

NearestMode nearest_mode_from_string(std::string_view mode) {
  if (mode == "round_prefer_floor") return NearestMode::kRoundPreferFloor;
  if (mode == "round_prefer_ceil") return NearestMode::kRoundPreferCeil;
  if (mode == "floor") return NearestMode::kFloor;
  if (mode == "ceil") return NearestMode::kCeil;
  fail("Resize", "unknown nearest_mode '" + std::string(mode) +
                     "' (round_prefer_floor, round_prefer_ceil, floor or ceil)");
}

Shape resize_shape(std::span<const std::int64_t> in, std::span<const float> scales,
                   std::span<const std::int64_t> sizes) {
  if (scales.empty() == sizes.empty()) {
    fail("Resize", "exactly one of scales and sizes must be given");
  }
  Shape out(in.size());
  const std::size_t n = scales.empty() ? sizes.size() : scales.size();
  if (n != in.size()) {
    fail("Resize", std::string(scales.empty() ? "sizes" : "scales") + " has " + std::to_string(n) +
                       " values for input " + shape_text(in));
  }
  for (std::size_t d = 0; d < in.size(); ++d) {
    if (scales.empty()) {
      if (sizes[d] < 0) fail("Resize", "negative size in " + shape_text(sizes));
      out[d] = sizes[d];
    } else {
      if (!(scales[d] > 0.0F)) {
        fail("Resize", "scale " + std::to_string(scales[d]) + " for dim " + std::to_string(d) +
                           " is not positive");
      }
      out[d] = static_cast<std::int64_t>(std::floor(static_cast<float>(in[d]) * scales[d]));
    }
  }
  return out;
}

std::vector<float> resize_scales(std::span<const std::int64_t> in,
                                 std::span<const std::int64_t> out, std::span<const float> scales) {
  if (!scales.empty()) return {scales.begin(), scales.end()};
  std::vector<float> s(in.size());
  for (std::size_t d = 0; d < in.size(); ++d) {
    s[d] = in[d] == 0 ? 1.0F : static_cast<float>(out[d]) / static_cast<float>(in[d]);
  }
  return s;
}

namespace {

// Source coordinate (before rounding) of output index x, as ONNX Runtime computes it in float.
float original_coordinate(CoordinateTransform t, float x, float scale, std::int64_t in_len,
                          std::int64_t out_len) {
  switch (t) {
    case CoordinateTransform::kHalfPixel:
      return (x + 0.5F) / scale - 0.5F;
    case CoordinateTransform::kAsymmetric:
      return x / scale;
    case CoordinateTransform::kAlignCorners:
      return out_len == 1 ? 0.0F
                          : x * static_cast<float>(in_len - 1) / static_cast<float>(out_len - 1);
    case CoordinateTransform::kPytorchHalfPixel:
      return out_len > 1 ? (x + 0.5F) / scale - 0.5F : 0.0F;
    case CoordinateTransform::kTfHalfPixelForNn:
      return (x + 0.5F) / scale;
  }
  return x;
}

std::int64_t round_nearest(NearestMode mode, float v) {
  switch (mode) {
    case NearestMode::kFloor:
      return static_cast<std::int64_t>(std::floor(v));
    case NearestMode::kCeil:
      return static_cast<std::int64_t>(std::ceil(v));
    case NearestMode::kRoundPreferFloor:
      return v == std::floor(v) + 0.5F ? static_cast<std::int64_t>(std::floor(v))
                                       : static_cast<std::int64_t>(std::round(v));
    case NearestMode::kRoundPreferCeil:
      return static_cast<std::int64_t>(std::round(v));
  }
  return 0;
}

}  // namespace

void resize_nearest(ConstTensorRef in, std::span<const float> scales, CoordinateTransform transform,
                    NearestMode mode, TensorRef out) {
  check_dtype(out, in.dtype, "Resize", "output");
  const std::size_t r = in.shape.size();
  if (scales.size() != r || out.shape.size() != r) {
    fail("Resize", "scales (" + std::to_string(scales.size()) + ") and output " +
                       shape_text(out.shape) + " must match the input's rank " +
                       shape_text(in.shape));
  }
  if (out.size() == 0) return;
  if (in.size() == 0)
    fail("Resize",
         "cannot resize empty input " + shape_text(in.shape) + " to " + shape_text(out.shape));
  // Per dim, the source index of each output index; note whether it is dst / integer factor.
  std::vector<std::vector<std::int64_t>> maps(r);
  bool integer_factor = true;
  std::vector<std::int64_t> factors(r, 1);
  for (std::size_t d = 0; d < r; ++d) {
    const std::int64_t in_len = in.shape[d];
    const std::int64_t out_len = out.shape[d];
    maps[d].resize(static_cast<std::size_t>(out_len));
    factors[d] = out_len % in_len == 0 ? out_len / in_len : 0;
    for (std::int64_t x = 0; x < out_len; ++x) {
      // Like ONNX Runtime, a dim with scale 1 maps one to one (no coordinate transform), so
      // e.g. tf_half_pixel_for_nn leaves N and C alone.
      if (scales[d] == 1.0F && in_len == out_len) {
        maps[d][static_cast<std::size_t>(x)] = x;
        continue;
      }
      const float c =
          original_coordinate(transform, static_cast<float>(x), scales[d], in_len, out_len);
      const std::int64_t s = std::clamp<std::int64_t>(round_nearest(mode, c), 0, in_len - 1);
      maps[d][static_cast<std::size_t>(x)] = s;
      if (factors[d] == 0 || s != x / factors[d]) integer_factor = false;
    }
  }
  const auto in_strides = detail::contiguous_strides(in.shape);
  detail::dispatch_width(in.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* src = in.as<T>();
    T* dst = out.as<T>();
    const std::int64_t row = out.shape[r - 1];
    const std::int64_t total = out.size();
    std::vector<std::int64_t> index(r, 0);
    const auto& last = maps[r - 1];
    const std::int64_t last_factor = factors[r - 1];
    for (std::int64_t o = 0; o < total; o += row) {
      std::int64_t offset = 0;
      for (std::size_t d = 0; d + 1 < r; ++d) {
        offset += maps[d][static_cast<std::size_t>(index[d])] * in_strides[d];
      }
      const T* s = src + offset;
      // Integer factors: rows that repeat the previous output row are copied whole.
      if (integer_factor && r >= 2 && index[r - 2] % factors[r - 2] != 0) {
        std::memcpy(dst + o, dst + o - row, static_cast<std::size_t>(row) * sizeof(T));
      } else if (integer_factor) {
        for (std::int64_t i = 0; i < in.shape[r - 1]; ++i) {
          std::fill_n(dst + o + i * last_factor, last_factor, s[i]);
        }
      } else {
        for (std::int64_t i = 0; i < row; ++i) dst[o + i] = s[last[static_cast<std::size_t>(i)]];
      }
      for (std::size_t d = r - 1; d-- > 0;) {
        if (++index[d] < out.shape[d]) break;
        index[d] = 0;
      }
    }
  });
}

void upsample_nearest_nhwc(const NhwcUpsample& p, const float* in, float* out) {
  if (p.batch < 0 || p.height < 0 || p.width < 0 || p.channels < 0 || p.factor_h < 1 ||
      p.factor_w < 1 || p.in_pixel_stride < p.channels || p.out_pixel_stride < p.channels) {
    fail("Resize",
         "invalid NHWC upsample: " + std::to_string(p.batch) + "x" + std::to_string(p.height) +
             "x" + std::to_string(p.width) + "x" + std::to_string(p.channels) + ", factors " +
             std::to_string(p.factor_h) + "x" + std::to_string(p.factor_w) + ", pixel strides " +
             std::to_string(p.in_pixel_stride) + "/" + std::to_string(p.out_pixel_stride));
  }
  const std::int64_t out_w = p.width * p.factor_w;
  const std::int64_t out_h = p.height * p.factor_h;
  const auto bytes = static_cast<std::size_t>(p.channels) * sizeof(float);
  for (std::int64_t n = 0; n < p.batch; ++n) {
    for (std::int64_t y = 0; y < p.height; ++y) {
      const float* src_row = in + ((n * p.height + y) * p.width) * p.in_pixel_stride;
      float* first = out + ((n * out_h + y * p.factor_h) * out_w) * p.out_pixel_stride;
      for (std::int64_t x = 0; x < p.width; ++x) {
        const float* px = src_row + x * p.in_pixel_stride;
        float* dst = first + x * p.factor_w * p.out_pixel_stride;
        for (std::int64_t f = 0; f < p.factor_w; ++f)
          std::memcpy(dst + f * p.out_pixel_stride, px, bytes);
      }
      // The other factor_h - 1 output rows repeat the first one.
      for (std::int64_t f = 1; f < p.factor_h; ++f) {
        float* row = first + f * out_w * p.out_pixel_stride;
        if (p.out_pixel_stride == p.channels) {
          std::memcpy(row, first, static_cast<std::size_t>(out_w) * bytes);
        } else {
          for (std::int64_t x = 0; x < out_w; ++x) {
            std::memcpy(row + x * p.out_pixel_stride, first + x * p.out_pixel_stride, bytes);
          }
        }
      }
    }
  }
}

}  // namespace yolo::runtime::kernels
