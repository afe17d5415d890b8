// SPDX-License-Identifier: Apache-2.0
#include "runtime/kernels/slice.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "runtime/kernels/detail.h"

namespace yolo::runtime::kernels {

using detail::fail;

SliceRange resolve_slice(std::span<const std::int64_t> in, std::span<const std::int64_t> starts,
                         std::span<const std::int64_t> ends, std::span<const std::int64_t> axes,
                         std::span<const std::int64_t> steps) {
  const auto rank = static_cast<std::int64_t>(in.size());
  if (starts.size() != ends.size() || (!axes.empty() && axes.size() != starts.size()) ||
      (!steps.empty() && steps.size() != starts.size())) {
    fail("Slice", "starts " + shape_text(starts) + ", ends " + shape_text(ends) + ", axes " +
                      shape_text(axes) + " and steps " + shape_text(steps) +
                      " must have the same length");
  }
  SliceRange r;
  r.starts.assign(in.size(), 0);
  r.steps.assign(in.size(), 1);
  r.shape.assign(in.begin(), in.end());
  std::vector<bool> seen(in.size(), false);
  for (std::size_t i = 0; i < starts.size(); ++i) {
    const std::int64_t axis_value = axes.empty() ? static_cast<std::int64_t>(i) : axes[i];
    const auto a = static_cast<std::size_t>(normalize_axis(axis_value, rank, "Slice"));
    if (seen[a]) fail("Slice", "axis " + std::to_string(axis_value) + " is repeated");
    seen[a] = true;
    const std::int64_t step = steps.empty() ? 1 : steps[i];
    if (step == 0) fail("Slice", "step 0 on axis " + std::to_string(axis_value));
    const std::int64_t dim = in[a];
    // Negative values count from the back; then clamp as the spec says: [0, dim] for a positive
    // step, start to [0, dim-1] and end to [-1, dim-1] for a negative one.
    auto resolve = [dim](std::int64_t v) {
      if (v < 0) v = v < -dim ? -1 : v + dim;  // -1 marks "before the start"
      return v;
    };
    std::int64_t start = resolve(starts[i]);
    std::int64_t end = resolve(ends[i]);
    std::int64_t count = 0;
    if (step > 0) {
      start = std::clamp<std::int64_t>(start, 0, dim);
      end = std::clamp<std::int64_t>(end, 0, dim);
      if (end > start) count = (end - start + step - 1) / step;
    } else if (dim > 0) {
      start = std::clamp<std::int64_t>(start, 0, dim - 1);
      end = std::clamp<std::int64_t>(end, -1, dim - 1);
      if (start > end) count = (start - end + (-step) - 1) / (-step);
    }
    r.starts[a] = count > 0 ? start : 0;
    r.steps[a] = step;
    r.shape[a] = count;
  }
  return r;
}

void slice(ConstTensorRef in, const SliceRange& range, TensorRef out) {
  check_dtype(out, in.dtype, "Slice", "output");
  check_shape(out, range.shape, "Slice", "output");
  const std::int64_t total = out.size();
  if (total == 0) return;
  const std::size_t rank = in.shape.size();
  if (rank == 0) {
    std::memcpy(out.data, in.data, dtype_size(in.dtype));
    return;
  }
  const auto in_strides = detail::contiguous_strides(in.shape);
  std::int64_t base = 0;
  for (std::size_t d = 0; d < rank; ++d) base += range.starts[d] * in_strides[d];
  const std::int64_t row = range.shape[rank - 1];
  const std::int64_t inner_step = range.steps[rank - 1];
  detail::dispatch_width(in.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* src = in.as<T>();
    T* dst = out.as<T>();
    std::vector<std::int64_t> index(rank, 0);
    std::int64_t offset = base;
    for (std::int64_t o = 0; o < total; o += row) {
      const T* s = src + offset;
      if (inner_step == 1) {
        std::memcpy(dst + o, s, static_cast<std::size_t>(row) * sizeof(T));
      } else {
        for (std::int64_t i = 0; i < row; ++i) dst[o + i] = s[i * inner_step];
      }
      for (std::size_t d = rank - 1; d-- > 0;) {
        ++index[d];
        offset += range.steps[d] * in_strides[d];
        if (index[d] < range.shape[d]) break;
        offset -= range.steps[d] * in_strides[d] * range.shape[d];
        index[d] = 0;
      }
    }
  });
}

}  // namespace yolo::runtime::kernels
