// SPDX-License-Identifier: Apache-2.0
#include "runtime/kernels/pad.h"

#include <algorithm>
#include <string>
#include <string_view>

#include "runtime/kernels/detail.h"

namespace yolo::runtime::kernels {

using detail::fail;

PadMode pad_mode_from_string(const char* mode) {
  const std::string_view m(mode);
  if (m == "constant") return PadMode::kConstant;
  if (m == "reflect") return PadMode::kReflect;
  if (m == "edge") return PadMode::kEdge;
  if (m == "wrap") return PadMode::kWrap;
  fail("Pad", "unknown mode '" + std::string(m) + "' (constant, reflect, edge or wrap expected)");
}

std::vector<std::int64_t> expand_pads(std::int64_t rank, std::span<const std::int64_t> pads,
                                      std::span<const std::int64_t> axes) {
  const auto r = static_cast<std::size_t>(rank);
  if (axes.empty()) {
    if (pads.size() != 2 * r) {
      fail("Pad", "pads " + shape_text(pads) + " must have " + std::to_string(2 * r) +
                      " values for rank " + std::to_string(rank));
    }
    return {pads.begin(), pads.end()};
  }
  if (pads.size() != 2 * axes.size()) {
    fail("Pad", "pads " + shape_text(pads) + " must have 2 values per axis of " + shape_text(axes));
  }
  std::vector<std::int64_t> full(2 * r, 0);
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const auto a = static_cast<std::size_t>(normalize_axis(axes[i], rank, "Pad"));
    full[a] = pads[i];
    full[a + r] = pads[i + axes.size()];
  }
  return full;
}

Shape pad_shape(std::span<const std::int64_t> in, std::span<const std::int64_t> full_pads) {
  const std::size_t r = in.size();
  if (full_pads.size() != 2 * r) {
    fail("Pad", "pads " + shape_text(full_pads) + " must have " + std::to_string(2 * r) +
                    " values for input " + shape_text(in));
  }
  Shape out(r);
  for (std::size_t d = 0; d < r; ++d) {
    out[d] = in[d] + full_pads[d] + full_pads[d + r];
    if (out[d] < 0) {
      fail("Pad", "pads " + shape_text(full_pads) + " crop dim " + std::to_string(d) + " of " +
                      shape_text(in) + " below zero");
    }
  }
  return out;
}

namespace {

// Source index along one dim for output index o (begin = the begin pad), or -1 for the constant.
std::int64_t source_index(std::int64_t o, std::int64_t begin, std::int64_t dim, PadMode mode) {
  std::int64_t i = o - begin;
  if (i >= 0 && i < dim) return i;
  switch (mode) {
    case PadMode::kConstant:
      return -1;
    case PadMode::kEdge:
      return i < 0 ? 0 : dim - 1;
    case PadMode::kWrap:
      return ((i % dim) + dim) % dim;
    case PadMode::kReflect: {
      if (dim == 1) return 0;
      const std::int64_t period = 2 * (dim - 1);
      i = ((i % period) + period) % period;
      return i < dim ? i : period - i;
    }
  }
  return -1;
}

}  // namespace

void pad(ConstTensorRef in, std::span<const std::int64_t> full_pads, PadMode mode,
         double constant_value, TensorRef out) {
  check_dtype(out, in.dtype, "Pad", "output");
  check_shape(out, pad_shape(in.shape, full_pads), "Pad", "output");
  const std::size_t r = in.shape.size();
  // Negative pads crop first and the rest pads the cropped region, as ONNX Runtime does, so
  // reflect/edge/wrap only ever read elements that survive the crop.
  std::vector<std::vector<std::int64_t>> maps(r);  // per dim: source index per output index
  for (std::size_t d = 0; d < r; ++d) {
    const std::int64_t crop_begin = std::max<std::int64_t>(0, -full_pads[d]);
    const std::int64_t crop_end = std::max<std::int64_t>(0, -full_pads[d + r]);
    const std::int64_t begin = std::max<std::int64_t>(0, full_pads[d]);
    const std::int64_t end = std::max<std::int64_t>(0, full_pads[d + r]);
    const std::int64_t len = in.shape[d] - crop_begin - crop_end;
    if (len < 0) {
      fail("Pad", "pads " + shape_text(full_pads) + " crop more than dim " + std::to_string(d) +
                      " of " + shape_text(in.shape) + " holds");
    }
    if (mode != PadMode::kConstant && (begin > 0 || end > 0)) {
      if (len == 0) {
        fail("Pad", "cannot pad empty dim " + std::to_string(d) + " of " + shape_text(in.shape) +
                        " in a non-constant mode");
      }
      if (mode == PadMode::kReflect && len > 1 && (begin >= len || end >= len)) {
        fail("Pad", "reflect pads " + shape_text(full_pads) + " must be smaller than dim " +
                        std::to_string(d) + " (" + std::to_string(len) + " after cropping) of " +
                        shape_text(in.shape));
      }
    }
    maps[d].resize(static_cast<std::size_t>(out.shape[d]));
    for (std::int64_t o = 0; o < out.shape[d]; ++o) {
      const std::int64_t s = source_index(o, begin, len, mode);
      maps[d][static_cast<std::size_t>(o)] = s < 0 ? -1 : s + crop_begin;
    }
  }
  if (out.size() == 0) return;
  const auto in_strides = detail::contiguous_strides(in.shape);
  detail::dispatch_all(in.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T fill = static_cast<T>(constant_value);
    const T* src = in.as<T>();
    T* dst = out.as<T>();
    const std::int64_t total = out.size();
    std::vector<std::int64_t> index(r, 0);
    for (std::int64_t o = 0; o < total; ++o) {
      std::int64_t offset = 0;
      bool constant = false;
      for (std::size_t d = 0; d < r; ++d) {
        const std::int64_t s = maps[d][static_cast<std::size_t>(index[d])];
        if (s < 0) {
          constant = true;
          break;
        }
        offset += s * in_strides[d];
      }
      dst[o] = constant ? fill : src[offset];
      for (std::size_t d = r; d-- > 0;) {
        if (++index[d] < out.shape[d]) break;
        index[d] = 0;
      }
    }
  });
}

}  // namespace yolo::runtime::kernels
