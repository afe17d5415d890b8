// SPDX-License-Identifier: Apache-2.0
#include "runtime/kernels/softmax.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "runtime/kernels/detail.h"

namespace yolo::runtime::kernels {
namespace {

// exp(x) for the x <= 0 that softmax feeds it (x minus the row's max), within about 2 ulp of
// std::exp. Branch-free, so the loops calling it vectorize (about 2.5x faster than std::exp
// here); inputs below -87, -inf and negative NaN give exp(-87) ~ 1.6e-38, i.e. 0 for softmax.
[[gnu::always_inline]] inline float exp_nonpositive(float x) {
  // Clamp on the bit pattern: for negative floats a larger magnitude is a larger unsigned value,
  // and an integer min vectorizes where a (possibly trapping) float compare does not.
  constexpr std::uint32_t kMinus87 = std::bit_cast<std::uint32_t>(-87.0F);
  x = std::bit_cast<float>(std::min(std::bit_cast<std::uint32_t>(x), kMinus87));
  const float n = (x * 1.44269504F + 12582912.0F) - 12582912.0F;  // round(x / ln 2)
  const float r = (x - n * 0.693145752F) - n * 1.42860677e-6F;    // x - n ln 2, ln 2 split in two
  float p = 1.0F / 720.0F;
  p = p * r + 1.0F / 120.0F;
  p = p * r + 1.0F / 24.0F;
  p = p * r + 1.0F / 6.0F;
  p = p * r + 0.5F;
  p = p * r + 1.0F;
  p = p * r + 1.0F;
  return p * std::bit_cast<float>((static_cast<std::int32_t>(n) + 127) << 23);
}

// Max and sum with eight partial results in vector lanes.
[[gnu::always_inline]] inline float max_of(const float* x, std::int64_t n) {
  return detail::fold_lanes<8>(x, n, -INFINITY, [](float a, float b) { return std::max(a, b); });
}

[[gnu::always_inline]] inline float sum_of(const float* x, std::int64_t n) {
  return detail::fold_lanes<8>(x, n, 0.0F, [](float a, float b) { return a + b; });
}

// Softmax over `len` elements spaced `inner` apart, for outer x inner such vectors, split into
// pool tasks: whole vectors when the axis is innermost, else chunks of columns.
struct Job {
  const float* x;
  float* y;
  std::int64_t len, inner;
};

// Columns per task when the axis is not innermost: their running max and sum live on the stack.
constexpr std::size_t kColumns = 512;

YOLO_KERNEL_CLONES void softmax_rows(void* context, std::size_t first, std::size_t count) {
  const Job& j = *static_cast<const Job*>(context);
  for (std::size_t o = first; o < first + count; ++o) {
    const float* xs = j.x + static_cast<std::int64_t>(o) * j.len;
    float* ys = j.y + static_cast<std::int64_t>(o) * j.len;
    const float peak = max_of(xs, j.len);
    for (std::int64_t k = 0; k < j.len; ++k) ys[k] = exp_nonpositive(xs[k] - peak);
    const float inv = 1.0F / sum_of(ys, j.len);
    for (std::int64_t k = 0; k < j.len; ++k) ys[k] *= inv;
  }
}

// Axis not innermost: whole rows of the chunk at a time, so memory is walked contiguously.
YOLO_KERNEL_CLONES void softmax_columns(void* context, std::size_t o, std::size_t first,
                                        std::size_t count) {
  const Job& j = *static_cast<const Job*>(context);
  const auto n = static_cast<std::int64_t>(count);
  const std::int64_t offset =
      static_cast<std::int64_t>(o) * j.len * j.inner + static_cast<std::int64_t>(first);
  const float* xs = j.x + offset;
  float* ys = j.y + offset;
  float m[kColumns];
  float sum[kColumns];
  std::copy_n(xs, n, m);
  for (std::int64_t k = 1; k < j.len; ++k) {
    for (std::int64_t i = 0; i < n; ++i) m[i] = std::max(m[i], xs[k * j.inner + i]);
  }
  std::fill_n(sum, n, 0.0F);
  for (std::int64_t k = 0; k < j.len; ++k) {
    const float* row = xs + k * j.inner;
    float* out = ys + k * j.inner;
    for (std::int64_t i = 0; i < n; ++i) out[i] = exp_nonpositive(row[i] - m[i]);
    for (std::int64_t i = 0; i < n; ++i) sum[i] += out[i];
  }
  for (std::int64_t i = 0; i < n; ++i) sum[i] = 1.0F / sum[i];
  for (std::int64_t k = 0; k < j.len; ++k) {
    for (std::int64_t i = 0; i < n; ++i) ys[k * j.inner + i] *= sum[i];
  }
}

void softmax_strided(const float* x, float* y, std::int64_t outer, std::int64_t len,
                     std::int64_t inner, pthreadpool_t pool) {
  Job job{x, y, len, inner};
  if (inner == 1) {
    // Rows of a few thousand elements per task.
    const auto rows = static_cast<std::size_t>(std::max<std::int64_t>(1, 4096 / len));
    pthreadpool_parallelize_1d_tile_1d(pool, softmax_rows, &job, static_cast<std::size_t>(outer),
                                       rows, 0);
    return;
  }
  pthreadpool_parallelize_2d_tile_1d(pool, softmax_columns, &job, static_cast<std::size_t>(outer),
                                     static_cast<std::size_t>(inner), kColumns, 0);
}

void check(ConstTensorRef in, TensorRef out) {
  check_dtype(in, DType::kFloat32, "Softmax", "input");
  check_dtype(out, DType::kFloat32, "Softmax", "output");
  check_shape(out, in.shape, "Softmax", "output");
}

}  // namespace

void softmax(ConstTensorRef in, std::int64_t axis, TensorRef out, pthreadpool_t pool) {
  check(in, out);
  if (in.rank() == 0) detail::fail("Softmax", "input is a scalar, it needs at least one axis");
  const auto a = static_cast<std::size_t>(normalize_axis(axis, in.rank(), "Softmax"));
  const std::int64_t outer = element_count(in.shape.subspan(0, a));
  const std::int64_t inner = element_count(in.shape.subspan(a + 1));
  if (in.size() == 0) return;
  softmax_strided(in.as<float>(), out.as<float>(), outer, in.shape[a], inner, pool);
}

void softmax_coerced(ConstTensorRef in, std::int64_t axis, TensorRef out, pthreadpool_t pool) {
  check(in, out);
  const std::int64_t rank = in.rank();
  if (axis < -rank || axis > rank) {
    detail::fail("Softmax", "axis " + std::to_string(axis) + " is out of range for rank " +
                                std::to_string(rank) + " (valid: " + std::to_string(-rank) + ".." +
                                std::to_string(rank) + ")");
  }
  const auto a = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
  const std::int64_t outer = element_count(in.shape.subspan(0, a));
  const std::int64_t len = element_count(in.shape.subspan(a));
  if (in.size() == 0) return;
  softmax_strided(in.as<float>(), out.as<float>(), outer, len, 1, pool);
}

}  // namespace yolo::runtime::kernels
