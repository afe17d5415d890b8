// SPDX-License-Identifier: Apache-2.0
#include "runtime/kernels/gather.h"

#include <cstring>
#include <string>

#include "runtime/kernels/detail.h"

namespace yolo::runtime::kernels {

using detail::fail;

namespace {

// Reads index i of an int64/int32 tensor, resolved against dim (negative counts from the back).
template <typename I>
std::int64_t resolve_index(const I* indices, std::int64_t i, std::int64_t dim, const char* op) {
  std::int64_t v = indices[i];
  if (v < -dim || v >= dim) {
    fail(op, "index " + std::to_string(v) + " is out of range for a dim of size " +
                 std::to_string(dim));
  }
  return v < 0 ? v + dim : v;
}

template <typename F>
void dispatch_index(ConstTensorRef indices, const char* op, F&& f) {
  if (indices.dtype == DType::kInt64) return f(indices.as<std::int64_t>());
  if (indices.dtype == DType::kInt32) return f(indices.as<std::int32_t>());
  fail(op, std::string("indices must be int64 or int32, got ") + dtype_name(indices.dtype));
}

}  // namespace

Shape gather_shape(std::span<const std::int64_t> data, std::span<const std::int64_t> indices,
                   std::int64_t axis) {
  const auto a = static_cast<std::size_t>(
      normalize_axis(axis, static_cast<std::int64_t>(data.size()), "Gather"));
  Shape out(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(a));
  out.insert(out.end(), indices.begin(), indices.end());
  out.insert(out.end(), data.begin() + static_cast<std::ptrdiff_t>(a) + 1, data.end());
  return out;
}

void gather(ConstTensorRef data, ConstTensorRef indices, std::int64_t axis, TensorRef out) {
  check_dtype(out, data.dtype, "Gather", "output");
  check_shape(out, gather_shape(data.shape, indices.shape, axis), "Gather", "output");
  const auto a = static_cast<std::size_t>(normalize_axis(axis, data.rank(), "Gather"));
  const std::int64_t outer = element_count(data.shape.subspan(0, a));
  const std::int64_t dim = data.shape[a];
  const auto inner_bytes =
      static_cast<std::size_t>(element_count(data.shape.subspan(a + 1))) * dtype_size(data.dtype);
  const std::int64_t count = indices.size();
  const auto* src = static_cast<const std::byte*>(data.data);
  auto* dst = static_cast<std::byte*>(out.data);
  dispatch_index(indices, "Gather", [&](const auto* idx) {
    for (std::int64_t i = 0; i < count; ++i) resolve_index(idx, i, dim, "Gather");
    if (inner_bytes == 0) return;
    for (std::int64_t o = 0; o < outer; ++o) {
      const std::byte* block = src + static_cast<std::size_t>(o * dim) * inner_bytes;
      for (std::int64_t i = 0; i < count; ++i) {
        const std::int64_t k = resolve_index(idx, i, dim, "Gather");
        std::memcpy(dst, block + static_cast<std::size_t>(k) * inner_bytes, inner_bytes);
        dst += inner_bytes;
      }
    }
  });
}

Shape gather_elements_shape(std::span<const std::int64_t> data,
                            std::span<const std::int64_t> indices, std::int64_t axis) {
  const auto rank = static_cast<std::int64_t>(data.size());
  const auto a = static_cast<std::size_t>(normalize_axis(axis, rank, "GatherElements"));
  bool ok = indices.size() == data.size();
  for (std::size_t d = 0; ok && d < data.size(); ++d) ok = d == a || indices[d] <= data[d];
  if (!ok) {
    fail("GatherElements", "indices " + shape_text(indices) + " do not fit data " +
                               shape_text(data) + " (same rank, dims no larger except on axis " +
                               std::to_string(axis) + ")");
  }
  return {indices.begin(), indices.end()};
}

void gather_elements(ConstTensorRef data, ConstTensorRef indices, std::int64_t axis,
                     TensorRef out) {
  check_dtype(out, data.dtype, "GatherElements", "output");
  check_shape(out, gather_elements_shape(data.shape, indices.shape, axis), "GatherElements",
              "output");
  const std::size_t r = data.shape.size();
  const auto a = static_cast<std::size_t>(normalize_axis(axis, data.rank(), "GatherElements"));
  const std::int64_t total = out.size();
  if (total == 0) return;
  const auto strides = detail::contiguous_strides(data.shape);
  const std::int64_t dim = data.shape[a];
  detail::dispatch_width(data.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* src = data.as<T>();
    T* dst = out.as<T>();
    dispatch_index(indices, "GatherElements", [&](const auto* idx) {
      std::vector<std::int64_t> index(r, 0);
      std::int64_t base = 0;  // data offset of the current index with the axis coordinate at 0
      for (std::int64_t o = 0; o < total; ++o) {
        const std::int64_t k = resolve_index(idx, o, dim, "GatherElements");
        dst[o] = src[base + k * strides[a]];
        for (std::size_t d = r; d-- > 0;) {
          ++index[d];
          if (d != a) base += strides[d];
          if (index[d] < indices.shape[d]) break;
          if (d != a) base -= strides[d] * indices.shape[d];
          index[d] = 0;
        }
      }
    });
  });
}

std::int64_t nonzero_count(ConstTensorRef in) {
  std::int64_t count = 0;
  detail::dispatch_all(in.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* x = in.as<T>();
    const std::int64_t n = in.size();
    for (std::int64_t i = 0; i < n; ++i) count += x[i] != T{0};
  });
  return count;
}

void nonzero(ConstTensorRef in, TensorRef out) {
  const std::int64_t count = nonzero_count(in);
  const Shape expected = {in.rank(), count};
  check_dtype(out, DType::kInt64, "NonZero", "output");
  check_shape(out, expected, "NonZero", "output");
  const std::size_t r = in.shape.size();
  auto* y = out.as<std::int64_t>();
  detail::dispatch_all(in.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* x = in.as<T>();
    const std::int64_t n = in.size();
    std::vector<std::int64_t> index(r, 0);
    std::int64_t j = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      if (x[i] != T{0}) {
        for (std::size_t d = 0; d < r; ++d) y[static_cast<std::int64_t>(d) * count + j] = index[d];
        ++j;
      }
      for (std::size_t d = r; d-- > 0;) {
        if (++index[d] < in.shape[d]) break;
        index[d] = 0;
      }
    }
  });
}

}  // namespace yolo::runtime::kernels
