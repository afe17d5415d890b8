// SPDX-License-Identifier: Apache-2.0
#include "runtime/kernels/transpose.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "runtime/kernels/detail.h"

namespace yolo::runtime::kernels {
namespace {

using detail::fail;

std::vector<std::int64_t> resolve_perm(std::size_t rank, std::span<const std::int64_t> perm) {
  std::vector<std::int64_t> p(rank);
  if (perm.empty()) {
    for (std::size_t i = 0; i < rank; ++i) p[i] = static_cast<std::int64_t>(rank - 1 - i);
    return p;
  }
  if (perm.size() != rank) {
    fail("Transpose", "perm " + shape_text(perm) + " has " + std::to_string(perm.size()) +
                          " entries for rank " + std::to_string(rank));
  }
  std::vector<bool> seen(rank, false);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t a = perm[i] < 0 ? perm[i] + static_cast<std::int64_t>(rank) : perm[i];
    if (a < 0 || a >= static_cast<std::int64_t>(rank) || seen[static_cast<std::size_t>(a)]) {
      fail("Transpose",
           "perm " + shape_text(perm) + " is not a permutation of 0.." + std::to_string(rank - 1));
    }
    seen[static_cast<std::size_t>(a)] = true;
    p[i] = a;
  }
  return p;
}

// out[b][j][i] = in[b][i][j] for `batch` matrices of rows x cols, in cache-sized tiles; a pool
// task takes one band of kTile rows of one matrix.
constexpr std::int64_t kTile = 32;

template <typename T>
struct Transpose2d {
  const T* in;
  T* out;
  std::int64_t rows, cols;
};

// Rows [first, first + count) of matrix b.
template <typename T>
void transpose_band(void* context, std::size_t b, std::size_t first, std::size_t count) {
  const auto& t = *static_cast<const Transpose2d<T>*>(context);
  const T* src = t.in + static_cast<std::int64_t>(b) * t.rows * t.cols;
  T* dst = t.out + static_cast<std::int64_t>(b) * t.rows * t.cols;
  const auto r0 = static_cast<std::int64_t>(first);
  const std::int64_t r1 = r0 + static_cast<std::int64_t>(count);
  for (std::int64_t c0 = 0; c0 < t.cols; c0 += kTile) {
    const std::int64_t c1 = std::min(t.cols, c0 + kTile);
    for (std::int64_t r = r0; r < r1; ++r) {
      for (std::int64_t c = c0; c < c1; ++c) dst[c * t.rows + r] = src[r * t.cols + c];
    }
  }
}

template <typename T>
void transpose_2d(const T* in, T* out, std::int64_t batch, std::int64_t rows, std::int64_t cols,
                  pthreadpool_t pool) {
  Transpose2d<T> t{in, out, rows, cols};
  pthreadpool_parallelize_2d_tile_1d(pool, transpose_band<T>, &t, static_cast<std::size_t>(batch),
                                     static_cast<std::size_t>(rows), kTile, 0);
}

template <typename T>
void transpose_general(const T* in, T* out, const Shape& out_shape,
                       const std::vector<std::int64_t>& in_strides) {
  const std::size_t rank = out_shape.size();
  const std::int64_t total = element_count(out_shape);
  if (total == 0) return;
  const std::int64_t row = out_shape[rank - 1];
  const std::int64_t step = in_strides[rank - 1];
  std::vector<std::int64_t> index(rank, 0);
  std::int64_t offset = 0;
  for (std::int64_t o = 0; o < total; o += row) {
    const T* src = in + offset;
    for (std::int64_t i = 0; i < row; ++i) out[o + i] = src[i * step];
    for (std::size_t d = rank - 1; d-- > 0;) {
      ++index[d];
      offset += in_strides[d];
      if (index[d] < out_shape[d]) break;
      offset -= in_strides[d] * out_shape[d];
      index[d] = 0;
    }
  }
}

}  // namespace

Shape transpose_shape(std::span<const std::int64_t> in, std::span<const std::int64_t> perm) {
  const auto p = resolve_perm(in.size(), perm);
  Shape out(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = in[static_cast<std::size_t>(p[i])];
  return out;
}

void transpose(ConstTensorRef in, std::span<const std::int64_t> perm, TensorRef out,
               pthreadpool_t pool) {
  check_dtype(out, in.dtype, "Transpose", "output");
  check_shape(out, transpose_shape(in.shape, perm), "Transpose", "output");
  const auto p = resolve_perm(in.shape.size(), perm);
  // Drop size-1 input axes, then merge runs of input axes that stay consecutive in the output.
  std::vector<std::int64_t> kept;  // input axes with size > 1, in output order
  for (auto a : p) {
    if (in.shape[static_cast<std::size_t>(a)] != 1) kept.push_back(a);
  }
  std::vector<std::vector<std::int64_t>> groups;  // runs of consecutive input axes, output order
  for (auto a : kept) {
    if (!groups.empty() && groups.back().back() + 1 == a) {
      groups.back().push_back(a);
    } else {
      groups.push_back({a});
    }
  }
  // Rank each group by its first input axis to get the merged permutation and shapes.
  std::vector<std::size_t> order(groups.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::ranges::sort(order,
                    [&](std::size_t x, std::size_t y) { return groups[x][0] < groups[y][0]; });
  const std::size_t rank = groups.size();
  Shape in_dims(rank);  // merged input shape, input order
  std::vector<std::size_t> input_pos(rank);
  for (std::size_t k = 0; k < rank; ++k) {
    std::int64_t size = 1;
    for (auto a : groups[order[k]]) size *= in.shape[static_cast<std::size_t>(a)];
    in_dims[k] = size;
    input_pos[order[k]] = k;
  }
  const std::int64_t bytes = in.size() * static_cast<std::int64_t>(dtype_size(in.dtype));
  bool identity = true;
  for (std::size_t i = 0; i < rank; ++i) identity = identity && input_pos[i] == i;
  if (identity || in.size() <= 1) {
    if (bytes > 0 && in.data != out.data)
      std::memcpy(out.data, in.data, static_cast<std::size_t>(bytes));
    return;
  }
  detail::dispatch_width(in.dtype, [&](auto tag) {
    using T = decltype(tag);
    // [.., A, B] -> [.., B, A] with leading axes unmoved: batched 2-D transpose.
    if (rank >= 2 && input_pos[rank - 1] == rank - 2 && input_pos[rank - 2] == rank - 1) {
      bool leading_fixed = true;
      for (std::size_t i = 0; i + 2 < rank; ++i) leading_fixed = leading_fixed && input_pos[i] == i;
      if (leading_fixed) {
        const std::int64_t rows = in_dims[rank - 2];
        const std::int64_t cols = in_dims[rank - 1];
        transpose_2d(in.as<T>(), out.as<T>(), in.size() / (rows * cols), rows, cols, pool);
        return;
      }
    }
    const auto in_strides = detail::contiguous_strides(in_dims);
    Shape out_dims(rank);
    std::vector<std::int64_t> strides(rank);
    for (std::size_t i = 0; i < rank; ++i) {
      out_dims[i] = in_dims[input_pos[i]];
      strides[i] = in_strides[input_pos[i]];
    }
    transpose_general(in.as<T>(), out.as<T>(), out_dims, strides);
  });
}

}  // namespace yolo::runtime::kernels
