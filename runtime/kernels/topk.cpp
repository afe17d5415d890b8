#include "runtime/kernels/topk.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/kernels/detail.h"

namespace yolo::runtime::kernels {

using detail::fail;

Shape topk_shape(std::span<const std::int64_t> in, std::int64_t k, std::int64_t axis) {
  const auto a =
      static_cast<std::size_t>(normalize_axis(axis, static_cast<std::int64_t>(in.size()), "TopK"));
  if (k < 0 || k > in[a]) {
    fail("TopK", "k " + std::to_string(k) + " is outside [0, " + std::to_string(in[a]) +
                     "] for axis " + std::to_string(axis) + " of " + shape_string(in));
  }
  Shape out(in.begin(), in.end());
  out[a] = k;
  return out;
}

void topk(ConstTensorRef in, std::int64_t k, std::int64_t axis, bool largest, TensorRef values,
          TensorRef indices) {
  const Shape shape = topk_shape(in.shape, k, axis);
  check_dtype(values, in.dtype, "TopK", "values");
  check_dtype(indices, DType::kInt64, "TopK", "indices");
  check_shape(values, shape, "TopK", "values");
  check_shape(indices, shape, "TopK", "indices");
  const auto a = static_cast<std::size_t>(normalize_axis(axis, in.rank(), "TopK"));
  const std::int64_t dim = in.shape[a];
  const std::int64_t outer = element_count(in.shape.subspan(0, a));
  const std::int64_t inner = element_count(in.shape.subspan(a + 1));
  if (k == 0 || in.size() == 0) return;
  detail::dispatch_numeric(in.dtype, "TopK", [&](auto tag) {
    using T = decltype(tag);
    const T* x = in.as<T>();
    T* vy = values.as<T>();
    auto* iy = indices.as<std::int64_t>();
    std::vector<std::int64_t> order(static_cast<std::size_t>(dim));
    std::vector<T> row(static_cast<std::size_t>(dim));
    // Strict weak order: better value first, then the lower index (ONNX Runtime's tie rule).
    auto better = [&](std::int64_t i, std::int64_t j) {
      const T vi = row[static_cast<std::size_t>(i)];
      const T vj = row[static_cast<std::size_t>(j)];
      if constexpr (std::is_floating_point_v<T>) {
        // NaN ranks last, which keeps the order strict and weak.
        if (std::isnan(vi) || std::isnan(vj)) {
          if (std::isnan(vi) != std::isnan(vj)) return std::isnan(vj);
          return i < j;
        }
      }
      if (vi != vj) return largest ? vi > vj : vi < vj;
      return i < j;
    };
    for (std::int64_t o = 0; o < outer; ++o) {
      for (std::int64_t in_i = 0; in_i < inner; ++in_i) {
        const T* src = x + o * dim * inner + in_i;
        for (std::int64_t j = 0; j < dim; ++j) row[static_cast<std::size_t>(j)] = src[j * inner];
        for (std::int64_t j = 0; j < dim; ++j) order[static_cast<std::size_t>(j)] = j;
        const auto kth = order.begin() + k;
        if (k < dim) std::nth_element(order.begin(), kth - 1, order.end(), better);
        std::sort(order.begin(), kth, better);
        const std::int64_t base = o * k * inner + in_i;
        for (std::int64_t j = 0; j < k; ++j) {
          const std::int64_t idx = order[static_cast<std::size_t>(j)];
          vy[base + j * inner] = row[static_cast<std::size_t>(idx)];
          iy[base + j * inner] = idx;
        }
      }
    }
  });
}

}  // namespace yolo::runtime::kernels
