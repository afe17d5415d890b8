// SPDX-License-Identifier: Apache-2.0
#include "runtime/kernels/topk.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "runtime/kernels/detail.h"

namespace yolo::runtime::kernels {

using detail::fail;

Shape topk_shape(std::span<const std::int64_t> in, std::int64_t k, std::int64_t axis) {
  const auto a =
      static_cast<std::size_t>(normalize_axis(axis, static_cast<std::int64_t>(in.size()), "TopK"));
  if (k < 0 || k > in[a]) {
    fail("TopK", "k " + std::to_string(k) + " is outside [0, " + std::to_string(in[a]) +
                     "] for axis " + std::to_string(axis) + " of " + shape_text(in));
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
    using Entry = std::pair<T, std::int64_t>;
    // Strict weak order: better value first, then the lower index (ONNX Runtime's tie rule).
    auto better = [largest](const Entry& x, const Entry& y) {
      if constexpr (std::is_floating_point_v<T>) {
        // NaN ranks last, which keeps the order strict and weak.
        if (std::isnan(x.first) || std::isnan(y.first)) {
          if (std::isnan(x.first) != std::isnan(y.first)) return std::isnan(y.first);
          return x.second < y.second;
        }
      }
      if (x.first != y.first) return largest ? x.first > y.first : x.first < y.first;
      return x.second < y.second;
    };
    // A heap of the k best so far with the worst on top: most elements of a long row are
    // rejected by one comparison against it.
    std::vector<Entry> heap;
    heap.reserve(static_cast<std::size_t>(k));
    for (std::int64_t o = 0; o < outer; ++o) {
      for (std::int64_t in_i = 0; in_i < inner; ++in_i) {
        const T* src = x + o * dim * inner + in_i;
        heap.clear();
        for (std::int64_t j = 0; j < k; ++j) heap.emplace_back(src[j * inner], j);
        std::make_heap(heap.begin(), heap.end(), better);
        for (std::int64_t j = k; j < dim; ++j) {
          const Entry candidate{src[j * inner], j};
          if (better(candidate, heap.front())) {
            std::pop_heap(heap.begin(), heap.end(), better);
            heap.back() = candidate;
            std::push_heap(heap.begin(), heap.end(), better);
          }
        }
        std::sort_heap(heap.begin(), heap.end(), better);
        const std::int64_t base = o * k * inner + in_i;
        for (std::int64_t j = 0; j < k; ++j) {
          vy[base + j * inner] = heap[static_cast<std::size_t>(j)].first;
          iy[base + j * inner] = heap[static_cast<std::size_t>(j)].second;
        }
      }
    }
  });
}

}  // namespace yolo::runtime::kernels
