#include "runtime/kernels/softmax.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "runtime/kernels/detail.h"

namespace yolo::runtime::kernels {
namespace {

// Softmax over `len` elements spaced `stride` apart, for outer x inner such vectors.
void softmax_strided(const float* x, float* y, std::int64_t outer, std::int64_t len,
                     std::int64_t inner) {
  std::vector<float> m;
  std::vector<float> sum;
  for (std::int64_t o = 0; o < outer; ++o) {
    const float* xs = x + o * len * inner;
    float* ys = y + o * len * inner;
    if (inner == 1) {
      float peak = -INFINITY;
      for (std::int64_t k = 0; k < len; ++k) peak = std::max(peak, xs[k]);
      float total = 0.0F;
      for (std::int64_t k = 0; k < len; ++k) {
        ys[k] = std::exp(xs[k] - peak);
        total += ys[k];
      }
      const float inv = 1.0F / total;
      for (std::int64_t k = 0; k < len; ++k) ys[k] *= inv;
      continue;
    }
    // Axis not innermost: work on whole rows of `inner` so memory is walked contiguously.
    m.assign(xs, xs + inner);
    for (std::int64_t k = 1; k < len; ++k) {
      for (std::int64_t i = 0; i < inner; ++i) m[i] = std::max(m[i], xs[k * inner + i]);
    }
    sum.assign(static_cast<std::size_t>(inner), 0.0F);
    for (std::int64_t k = 0; k < len; ++k) {
      for (std::int64_t i = 0; i < inner; ++i) {
        const float e = std::exp(xs[k * inner + i] - m[i]);
        ys[k * inner + i] = e;
        sum[i] += e;
      }
    }
    for (auto& s : sum) s = 1.0F / s;
    for (std::int64_t k = 0; k < len; ++k) {
      for (std::int64_t i = 0; i < inner; ++i) ys[k * inner + i] *= sum[i];
    }
  }
}

void check(ConstTensorRef in, TensorRef out) {
  check_dtype(in, DType::kFloat32, "Softmax", "input");
  check_dtype(out, DType::kFloat32, "Softmax", "output");
  check_shape(out, in.shape, "Softmax", "output");
}

}  // namespace

void softmax(ConstTensorRef in, std::int64_t axis, TensorRef out) {
  check(in, out);
  if (in.rank() == 0) detail::fail("Softmax", "input is a scalar, it needs at least one axis");
  const auto a = static_cast<std::size_t>(normalize_axis(axis, in.rank(), "Softmax"));
  const std::int64_t outer = element_count(in.shape.subspan(0, a));
  const std::int64_t inner = element_count(in.shape.subspan(a + 1));
  if (in.size() == 0) return;
  softmax_strided(in.as<float>(), out.as<float>(), outer, in.shape[a], inner);
}

void softmax_coerced(ConstTensorRef in, std::int64_t axis, TensorRef out) {
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
  softmax_strided(in.as<float>(), out.as<float>(), outer, len, 1);
}

}  // namespace yolo::runtime::kernels
