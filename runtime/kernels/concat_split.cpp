// SPDX-License-Identifier: Apache-2.0
#include "runtime/kernels/concat_split.h"

#include <cstring>
#include <string>

#include "runtime/kernels/detail.h"

namespace yolo::runtime::kernels {

using detail::fail;

namespace {

// Bytes of one "row" below axis, and the number of rows above it.
std::int64_t inner_elements(std::span<const std::int64_t> shape, std::size_t axis) {
  return element_count(shape.subspan(axis + 1));
}

}  // namespace

Shape concat_shape(std::span<const Shape> inputs, std::int64_t axis) {
  if (inputs.empty()) fail("Concat", "needs at least one input");
  const auto rank = static_cast<std::int64_t>(inputs[0].size());
  const auto a = static_cast<std::size_t>(normalize_axis(axis, rank, "Concat"));
  Shape out = inputs[0];
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    const auto& s = inputs[i];
    bool ok = s.size() == out.size();
    for (std::size_t d = 0; ok && d < s.size(); ++d) ok = d == a || s[d] == out[d];
    if (!ok) {
      fail("Concat", "input " + std::to_string(i) + " has shape " + shape_text(s) +
                         ", incompatible with " + shape_text(inputs[0]) + " along axis " +
                         std::to_string(axis));
    }
    out[a] += s[a];
  }
  return out;
}

void concat(std::span<const ConstTensorRef> inputs, std::int64_t axis, TensorRef out) {
  std::vector<Shape> shapes;
  shapes.reserve(inputs.size());
  for (const auto& in : inputs) {
    check_dtype(in, out.dtype, "Concat", "input");
    shapes.emplace_back(in.shape.begin(), in.shape.end());
  }
  check_shape(out, concat_shape(shapes, axis), "Concat", "output");
  const auto a = static_cast<std::size_t>(normalize_axis(axis, out.rank(), "Concat"));
  const auto elem = static_cast<std::int64_t>(dtype_size(out.dtype));
  const std::int64_t outer = element_count(out.shape.subspan(0, a));
  const std::int64_t out_row = out.shape[a] * inner_elements(out.shape, a) * elem;
  auto* dst = static_cast<std::byte*>(out.data);
  std::int64_t offset = 0;
  for (const auto& in : inputs) {
    const std::int64_t row = in.shape[a] * inner_elements(in.shape, a) * elem;
    const auto* src = static_cast<const std::byte*>(in.data);
    if (row > 0) {
      for (std::int64_t o = 0; o < outer; ++o) {
        std::memcpy(dst + o * out_row + offset, src + o * row, static_cast<std::size_t>(row));
      }
    }
    offset += row;
  }
}

std::vector<std::int64_t> split_sizes(std::span<const std::int64_t> in, std::int64_t axis,
                                      std::span<const std::int64_t> split, std::int64_t num_outputs,
                                      bool uneven_last) {
  const auto a =
      static_cast<std::size_t>(normalize_axis(axis, static_cast<std::int64_t>(in.size()), "Split"));
  const std::int64_t dim = in[a];
  if (!split.empty()) {
    std::int64_t sum = 0;
    for (auto s : split) {
      if (s < 0) fail("Split", "negative size in split " + shape_text(split));
      sum += s;
    }
    if (sum != dim) {
      fail("Split", "split " + shape_text(split) + " sums to " + std::to_string(sum) +
                        " but axis " + std::to_string(axis) + " of " + shape_text(in) + " has " +
                        std::to_string(dim));
    }
    return {split.begin(), split.end()};
  }
  if (num_outputs < 1)
    fail("Split", "num_outputs " + std::to_string(num_outputs) + " is not positive");
  if (!uneven_last) {
    if (dim % num_outputs != 0) {
      fail("Split", "axis " + std::to_string(axis) + " of " + shape_text(in) +
                        " does not divide into " + std::to_string(num_outputs) + " equal parts");
    }
    return std::vector<std::int64_t>(static_cast<std::size_t>(num_outputs), dim / num_outputs);
  }
  if (num_outputs > dim && dim > 0) {
    fail("Split", "num_outputs " + std::to_string(num_outputs) + " exceeds axis size " +
                      std::to_string(dim));
  }
  const std::int64_t part = (dim + num_outputs - 1) / num_outputs;
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(num_outputs), part);
  sizes.back() = dim - part * (num_outputs - 1);
  return sizes;
}

std::vector<Shape> split_shapes(std::span<const std::int64_t> in, std::int64_t axis,
                                std::span<const std::int64_t> sizes) {
  const auto a =
      static_cast<std::size_t>(normalize_axis(axis, static_cast<std::int64_t>(in.size()), "Split"));
  std::vector<Shape> out;
  for (auto s : sizes) {
    out.emplace_back(in.begin(), in.end());
    out.back()[a] = s;
  }
  return out;
}

void split(ConstTensorRef in, std::int64_t axis, std::span<const TensorRef> outputs) {
  const auto a = static_cast<std::size_t>(normalize_axis(axis, in.rank(), "Split"));
  std::vector<std::int64_t> sizes;
  for (const auto& o : outputs) {
    check_dtype(o, in.dtype, "Split", "output");
    if (o.rank() != in.rank())
      fail("Split", "output rank differs from input " + shape_text(in.shape));
    sizes.push_back(o.shape[a]);
  }
  const auto expected = split_shapes(in.shape, axis, split_sizes(in.shape, axis, sizes, 0, false));
  for (std::size_t i = 0; i < outputs.size(); ++i)
    check_shape(outputs[i], expected[i], "Split", "output");
  const auto elem = static_cast<std::int64_t>(dtype_size(in.dtype));
  const std::int64_t outer = element_count(in.shape.subspan(0, a));
  const std::int64_t in_row = in.shape[a] * inner_elements(in.shape, a) * elem;
  const auto* src = static_cast<const std::byte*>(in.data);
  std::int64_t offset = 0;
  for (const auto& o : outputs) {
    const std::int64_t row = o.shape[a] * inner_elements(o.shape, a) * elem;
    auto* dst = static_cast<std::byte*>(o.data);
    if (row > 0) {
      for (std::int64_t r = 0; r < outer; ++r) {
        std::memcpy(dst + r * row, src + r * in_row + offset, static_cast<std::size_t>(row));
      }
    }
    offset += row;
  }
}

}  // namespace yolo::runtime::kernels
