// SPDX-License-Identifier: Apache-2.0
#include "runtime/kernels/quantize.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "runtime/kernels/detail.h"

namespace yolo::runtime::kernels {

using detail::fail;

// nearbyint would follow the current rounding mode.
float round_half_even(float x) {
  if (std::fabs(x - std::trunc(x)) == 0.5F) return 2.0F * std::round(x * 0.5F);
  return std::round(x);
}

namespace {

template <typename Q>
Q saturate(float v) {
  constexpr auto lo = static_cast<float>(std::numeric_limits<Q>::min());
  constexpr auto hi = static_cast<float>(std::numeric_limits<Q>::max());
  return static_cast<Q>(std::clamp(v, lo, hi));
}

// How x splits around the quantization axis: outer x channels x inner (per tensor: 1 x 1 x size).
struct Layout {
  std::int64_t outer = 1;
  std::int64_t channels = 1;
  std::int64_t inner = 1;
};

Layout parameter_layout(ConstTensorRef x, ConstTensorRef scale,
                        std::optional<ConstTensorRef> zero_point, std::int64_t axis,
                        const char* op) {
  check_dtype(scale, DType::kFloat32, op, "scale");
  if (zero_point && zero_point->size() != scale.size()) {
    fail(op, "zero_point " + shape_text(zero_point->shape) + " and scale " +
                 shape_text(scale.shape) + " differ in size");
  }
  Layout l;
  if (scale.rank() == 0 || (scale.rank() == 1 && scale.size() == 1)) {
    l.inner = x.size();
    return l;
  }
  if (scale.rank() != 1) {
    fail(op, "scale must be a scalar or 1-D, got " + shape_text(scale.shape));
  }
  const auto a = static_cast<std::size_t>(normalize_axis(axis, x.rank(), op));
  if (x.shape[a] != scale.size()) {
    fail(op, "scale has " + std::to_string(scale.size()) + " values but axis " +
                 std::to_string(axis) + " of " + shape_text(x.shape) + " has " +
                 std::to_string(x.shape[a]));
  }
  l.outer = element_count(x.shape.subspan(0, a));
  l.channels = x.shape[a];
  l.inner = element_count(x.shape.subspan(a + 1));
  return l;
}

template <typename Q>
void quantize_typed(const float* x, std::int64_t n, float scale, float zero_point, Q* y) {
  for (std::int64_t i = 0; i < n; ++i)
    y[i] = saturate<Q>(round_half_even(x[i] / scale) + zero_point);
}

}  // namespace

DynamicQuantParams dynamic_quant_params(ConstTensorRef x) {
  check_dtype(x, DType::kFloat32, "DynamicQuantizeLinear", "input");
  const float* p = x.as<float>();
  const std::int64_t n = x.size();
  float lo = 0.0F;
  float hi = 0.0F;
  for (std::int64_t i = 0; i < n; ++i) {
    lo = std::min(lo, p[i]);
    hi = std::max(hi, p[i]);
  }
  DynamicQuantParams q;
  q.scale = hi == lo ? 1.0F : (hi - lo) / 255.0F;
  const float zp = std::clamp(0.0F - lo / q.scale, 0.0F, 255.0F);
  q.zero_point = static_cast<std::uint8_t>(round_half_even(zp));
  return q;
}

DynamicQuantParams dynamic_quantize_linear(ConstTensorRef x, TensorRef y) {
  check_dtype(y, DType::kUInt8, "DynamicQuantizeLinear", "output");
  check_shape(y, x.shape, "DynamicQuantizeLinear", "output");
  const DynamicQuantParams q = dynamic_quant_params(x);
  quantize_typed(x.as<float>(), x.size(), q.scale, static_cast<float>(q.zero_point),
                 y.as<std::uint8_t>());
  return q;
}

void quantize_linear(ConstTensorRef x, ConstTensorRef scale,
                     std::optional<ConstTensorRef> zero_point, std::int64_t axis, TensorRef y) {
  constexpr const char* kOp = "QuantizeLinear";
  check_dtype(x, DType::kFloat32, kOp, "input");
  check_shape(y, x.shape, kOp, "output");
  if (y.dtype != DType::kInt8 && y.dtype != DType::kUInt8) {
    fail(kOp, std::string("output must be int8 or uint8, got ") + dtype_name(y.dtype));
  }
  if (zero_point) check_dtype(*zero_point, y.dtype, kOp, "zero_point");
  const Layout l = parameter_layout(x, scale, zero_point, axis, kOp);
  const float* scales = scale.as<float>();
  const float* px = x.as<float>();
  auto zp_at = [&](std::int64_t c) -> float {
    if (!zero_point) return 0.0F;
    return y.dtype == DType::kInt8 ? zero_point->as<std::int8_t>()[c]
                                   : zero_point->as<std::uint8_t>()[c];
  };
  for (std::int64_t o = 0; o < l.outer; ++o) {
    for (std::int64_t c = 0; c < l.channels; ++c) {
      const std::int64_t off = (o * l.channels + c) * l.inner;
      if (y.dtype == DType::kInt8) {
        quantize_typed(px + off, l.inner, scales[c], zp_at(c), y.as<std::int8_t>() + off);
      } else {
        quantize_typed(px + off, l.inner, scales[c], zp_at(c), y.as<std::uint8_t>() + off);
      }
    }
  }
}

void dequantize_linear(ConstTensorRef x, ConstTensorRef scale,
                       std::optional<ConstTensorRef> zero_point, std::int64_t axis, TensorRef y) {
  constexpr const char* kOp = "DequantizeLinear";
  check_dtype(y, DType::kFloat32, kOp, "output");
  check_shape(y, x.shape, kOp, "output");
  if (x.dtype != DType::kInt8 && x.dtype != DType::kUInt8 && x.dtype != DType::kInt32) {
    fail(kOp, std::string("input must be int8, uint8 or int32, got ") + dtype_name(x.dtype));
  }
  if (zero_point) check_dtype(*zero_point, x.dtype, kOp, "zero_point");
  const Layout l = parameter_layout(x, scale, zero_point, axis, kOp);
  const float* scales = scale.as<float>();
  float* py = y.as<float>();
  auto run = [&](auto tag) {
    using Q = decltype(tag);
    const Q* px = x.as<Q>();
    const Q* zps = zero_point ? zero_point->as<Q>() : nullptr;
    for (std::int64_t o = 0; o < l.outer; ++o) {
      for (std::int64_t c = 0; c < l.channels; ++c) {
        const std::int64_t off = (o * l.channels + c) * l.inner;
        const std::int64_t zp = zps ? zps[c] : 0;
        const float s = scales[c];
        for (std::int64_t i = 0; i < l.inner; ++i) {
          py[off + i] = static_cast<float>(static_cast<std::int64_t>(px[off + i]) - zp) * s;
        }
      }
    }
  };
  if (x.dtype == DType::kInt8) {
    run(std::int8_t{});
  } else if (x.dtype == DType::kUInt8) {
    run(std::uint8_t{});
  } else {
    run(std::int32_t{});
  }
}

}  // namespace yolo::runtime::kernels
