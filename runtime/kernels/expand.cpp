// SPDX-License-Identifier: Apache-2.0
#include "runtime/kernels/expand.h"

#include <algorithm>
#include <string>

#include "runtime/kernels/detail.h"
#include "runtime/kernels/elementwise.h"

namespace yolo::runtime::kernels {

using detail::fail;

Shape expand_shape(std::span<const std::int64_t> in, std::span<const std::int64_t> requested) {
  return broadcast_shape(in, requested, "Expand");
}

void expand(ConstTensorRef in, TensorRef out) {
  check_dtype(out, in.dtype, "Expand", "output");
  check_shape(out, broadcast_shape(in.shape, out.shape, "Expand"), "Expand", "output");
  const std::span<const std::int64_t> shapes[] = {in.shape};
  const auto plan = detail::make_broadcast_plan(shapes, out.shape);
  detail::dispatch_width(in.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* src = in.as<T>();
    T* dst = out.as<T>();
    detail::for_each_row(plan, [&](const std::int64_t* offs, std::int64_t n, const std::int64_t* st,
                                   std::int64_t o) {
      const T* s = src + offs[0];
      if (st[0] == 0) {
        std::fill_n(dst + o, n, *s);
      } else {
        for (std::int64_t i = 0; i < n; ++i) dst[o + i] = s[i * st[0]];
      }
    });
  });
}

Shape tile_shape(std::span<const std::int64_t> in, std::span<const std::int64_t> repeats) {
  if (repeats.size() != in.size()) {
    fail("Tile",
         "repeats " + shape_text(repeats) + " must have one value per dim of " + shape_text(in));
  }
  Shape out(in.size());
  for (std::size_t d = 0; d < in.size(); ++d) {
    if (repeats[d] < 0) fail("Tile", "negative repeat in " + shape_text(repeats));
    out[d] = in[d] * repeats[d];
  }
  return out;
}

void tile(ConstTensorRef in, TensorRef out) {
  check_dtype(out, in.dtype, "Tile", "output");
  const std::size_t r = in.shape.size();
  bool ok = out.shape.size() == r;
  for (std::size_t d = 0; ok && d < r; ++d) {
    ok = in.shape[d] == 0 ? out.shape[d] == 0 : out.shape[d] % in.shape[d] == 0;
  }
  if (!ok) {
    fail("Tile",
         "output " + shape_text(out.shape) + " is not a tiling of input " + shape_text(in.shape));
  }
  const std::int64_t total = out.size();
  if (total == 0) return;
  if (r == 0) {
    copy(in, out, "Tile");
    return;
  }
  const auto in_strides = detail::contiguous_strides(in.shape);
  const std::int64_t row_in = in.shape[r - 1];
  const std::int64_t row_out = out.shape[r - 1];
  detail::dispatch_width(in.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* src = in.as<T>();
    T* dst = out.as<T>();
    std::vector<std::int64_t> index(r, 0);
    for (std::int64_t o = 0; o < total; o += row_out) {
      std::int64_t offset = 0;
      for (std::size_t d = 0; d + 1 < r; ++d) offset += (index[d] % in.shape[d]) * in_strides[d];
      for (std::int64_t i = 0; i < row_out; i += row_in) {
        std::copy_n(src + offset, row_in, dst + o + i);
      }
      for (std::size_t d = r - 1; d-- > 0;) {
        if (++index[d] < out.shape[d]) break;
        index[d] = 0;
      }
    }
  });
}

}  // namespace yolo::runtime::kernels
