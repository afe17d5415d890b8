// SPDX-License-Identifier: Apache-2.0
#include "runtime/kernels/shape_ops.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "runtime/kernels/detail.h"

namespace yolo::runtime::kernels {

using detail::fail;

Shape reshape_shape(std::span<const std::int64_t> in, std::span<const std::int64_t> requested,
                    bool allowzero) {
  Shape out(requested.begin(), requested.end());
  std::int64_t inferred = -1;
  std::int64_t known = 1;
  bool has_zero = false;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      if (inferred >= 0) fail("Reshape", "more than one -1 in shape " + shape_text(requested));
      inferred = static_cast<std::int64_t>(i);
      continue;
    }
    if (out[i] < -1) {
      fail("Reshape",
           "invalid dim " + std::to_string(out[i]) + " in shape " + shape_text(requested));
    }
    if (out[i] == 0) {
      has_zero = true;
      if (!allowzero) {
        if (i >= in.size()) {
          fail("Reshape", "dim " + std::to_string(i) + " is 0 (copy) but input " + shape_text(in) +
                              " has no such dim");
        }
        out[i] = in[i];
      }
    }
    known *= out[i];
  }
  if (allowzero && has_zero && inferred >= 0) {
    fail("Reshape", "allowzero=1 forbids 0 together with -1 in shape " + shape_text(requested));
  }
  const std::int64_t total = element_count(in);
  if (inferred >= 0) {
    if (known == 0 || total % known != 0) {
      fail("Reshape",
           "cannot infer the -1 in " + shape_text(requested) + " from input " + shape_text(in));
    }
    out[static_cast<std::size_t>(inferred)] = total / known;
  } else if (known != total) {
    fail("Reshape", "input " + shape_text(in) + " has " + std::to_string(total) +
                        " elements, shape " + shape_text(requested) + " needs " +
                        std::to_string(known));
  }
  return out;
}

Shape flatten_shape(std::span<const std::int64_t> in, std::int64_t axis) {
  const auto rank = static_cast<std::int64_t>(in.size());
  if (axis < -rank || axis > rank) {
    fail("Flatten", "axis " + std::to_string(axis) + " is out of range for rank " +
                        std::to_string(rank) + " (valid: " + std::to_string(-rank) + ".." +
                        std::to_string(rank) + ")");
  }
  if (axis < 0) axis += rank;
  return {element_count(in.subspan(0, static_cast<std::size_t>(axis))),
          element_count(in.subspan(static_cast<std::size_t>(axis)))};
}

Shape squeeze_shape(std::span<const std::int64_t> in, std::span<const std::int64_t> axes) {
  const auto rank = static_cast<std::int64_t>(in.size());
  std::vector<bool> drop(in.size(), false);
  if (axes.empty()) {
    for (std::size_t i = 0; i < in.size(); ++i) drop[i] = in[i] == 1;
  }
  for (auto a : axes) {
    const auto axis = static_cast<std::size_t>(normalize_axis(a, rank, "Squeeze"));
    if (in[axis] != 1) {
      fail("Squeeze", "axis " + std::to_string(a) + " has size " + std::to_string(in[axis]) +
                          " in " + shape_text(in) + ", only size-1 axes can be squeezed");
    }
    drop[axis] = true;
  }
  Shape out;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (!drop[i]) out.push_back(in[i]);
  }
  return out;
}

Shape unsqueeze_shape(std::span<const std::int64_t> in, std::span<const std::int64_t> axes) {
  const auto out_rank = static_cast<std::int64_t>(in.size() + axes.size());
  std::vector<bool> inserted(static_cast<std::size_t>(out_rank), false);
  for (auto a : axes) {
    const auto axis = static_cast<std::size_t>(normalize_axis(a, out_rank, "Unsqueeze"));
    if (inserted[axis]) fail("Unsqueeze", "axis " + std::to_string(a) + " is repeated");
    inserted[axis] = true;
  }
  Shape out;
  std::size_t next = 0;
  for (std::size_t i = 0; i < inserted.size(); ++i) out.push_back(inserted[i] ? 1 : in[next++]);
  return out;
}

std::vector<std::int64_t> shape_values(std::span<const std::int64_t> in,
                                       std::optional<std::int64_t> start,
                                       std::optional<std::int64_t> end) {
  const auto rank = static_cast<std::int64_t>(in.size());
  auto clamp = [rank](std::int64_t v) {
    if (v < 0) v += rank;
    return std::clamp<std::int64_t>(v, 0, rank);
  };
  const std::int64_t s = start ? clamp(*start) : 0;
  const std::int64_t e = end ? clamp(*end) : rank;
  if (e <= s) return {};
  return {in.begin() + s, in.begin() + e};
}

Shape constant_of_shape_shape(std::span<const std::int64_t> dims) {
  for (auto d : dims) {
    if (d < 0) fail("ConstantOfShape", "negative dim in requested shape " + shape_text(dims));
  }
  return {dims.begin(), dims.end()};
}

void fill(ConstTensorRef value, TensorRef out) {
  if (value.size() != 1) {
    fail("ConstantOfShape", "value must have one element, has " + std::to_string(value.size()));
  }
  check_dtype(out, value.dtype, "ConstantOfShape", "output");
  detail::dispatch_width(value.dtype, [&](auto tag) {
    using T = decltype(tag);
    std::fill_n(out.as<T>(), out.size(), *value.as<T>());
  });
}

Shape range_shape(ConstTensorRef start, ConstTensorRef limit, ConstTensorRef delta) {
  for (const auto* t : {&start, &limit, &delta}) {
    if (t->size() != 1)
      fail("Range", "start, limit and delta must be scalars, got " + shape_text(t->shape));
  }
  check_dtype(limit, start.dtype, "Range", "limit");
  check_dtype(delta, start.dtype, "Range", "delta");
  return detail::dispatch_numeric(start.dtype, "Range", [&](auto tag) -> Shape {
    using T = decltype(tag);
    const T s = *start.as<T>();
    const T l = *limit.as<T>();
    const T d = *delta.as<T>();
    if (d == T{0}) fail("Range", "delta is 0");
    const double n =
        std::ceil((static_cast<double>(l) - static_cast<double>(s)) / static_cast<double>(d));
    return {std::max<std::int64_t>(static_cast<std::int64_t>(n), 0)};
  });
}

void range(ConstTensorRef start, ConstTensorRef delta, TensorRef out) {
  check_dtype(out, start.dtype, "Range", "output");
  check_dtype(delta, start.dtype, "Range", "delta");
  detail::dispatch_numeric(start.dtype, "Range", [&](auto tag) {
    using T = decltype(tag);
    const T s = *start.as<T>();
    const T d = *delta.as<T>();
    T* y = out.as<T>();
    const std::int64_t n = out.size();
    // Accumulating like ONNX Runtime keeps float results bit-identical to it.
    T value = s;
    for (std::int64_t i = 0; i < n; ++i) {
      y[i] = value;
      value = static_cast<T>(value + d);
    }
  });
}

}  // namespace yolo::runtime::kernels
