// SPDX-License-Identifier: Apache-2.0
#include "runtime/kernels/reduce.h"

#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>

#include "runtime/kernels/detail.h"

namespace yolo::runtime::kernels {

using detail::fail;

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::kMax:
      return "ReduceMax";
    case ReduceOp::kMin:
      return "ReduceMin";
    case ReduceOp::kSum:
      return "ReduceSum";
    case ReduceOp::kMean:
      return "ReduceMean";
    case ReduceOp::kProd:
      return "ReduceProd";
  }
  return "?";
}

std::vector<std::int64_t> reduce_axes(ReduceOp op, std::int64_t rank,
                                      std::span<const std::int64_t> axes,
                                      bool noop_with_empty_axes) {
  std::vector<std::int64_t> out;
  if (axes.empty()) {
    if (noop_with_empty_axes) return out;
    for (std::int64_t i = 0; i < rank; ++i) out.push_back(i);
    return out;
  }
  for (auto a : axes) {
    const std::int64_t n = normalize_axis(a, rank, reduce_op_name(op));
    if (std::ranges::find(out, n) != out.end()) {
      fail(reduce_op_name(op), "axis " + std::to_string(a) + " is repeated");
    }
    out.push_back(n);
  }
  std::ranges::sort(out);
  return out;
}

Shape reduce_shape(std::span<const std::int64_t> in, std::span<const std::int64_t> normalized_axes,
                   bool keepdims) {
  Shape out;
  for (std::size_t d = 0; d < in.size(); ++d) {
    const bool reduced =
        std::ranges::find(normalized_axes, static_cast<std::int64_t>(d)) != normalized_axes.end();
    if (!reduced) {
      out.push_back(in[d]);
    } else if (keepdims) {
      out.push_back(1);
    }
  }
  return out;
}

namespace {

template <typename T>
struct Reducer {
  ReduceOp op;
  T init() const {
    switch (op) {
      case ReduceOp::kMax:
        if constexpr (std::is_floating_point_v<T>) return -std::numeric_limits<T>::infinity();
        return std::numeric_limits<T>::lowest();
      case ReduceOp::kMin:
        if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::infinity();
        return std::numeric_limits<T>::max();
      case ReduceOp::kProd:
        return T{1};
      default:
        return T{0};
    }
  }
  T apply(T acc, T x) const {
    switch (op) {
      case ReduceOp::kMax:
        return std::max(acc, x);
      case ReduceOp::kMin:
        return std::min(acc, x);
      case ReduceOp::kProd:
        if constexpr (std::is_integral_v<T>) {
          // Wraps like ONNX Runtime's two's-complement arithmetic, without signed overflow UB.
          return static_cast<T>(static_cast<std::make_unsigned_t<T>>(acc) *
                                static_cast<std::make_unsigned_t<T>>(x));
        }
        return acc * x;
      default:
        if constexpr (std::is_integral_v<T>) {
          return static_cast<T>(static_cast<std::make_unsigned_t<T>>(acc) +
                                static_cast<std::make_unsigned_t<T>>(x));
        }
        return acc + x;
    }
  }
};

// The max (or min) of each row of floats, with 16 partial results in vector lanes: one sequential
// max chain waits on each compare's latency (ReduceMax over the 80 class scores of yolo26n's 8400
// anchors took 0.56 ms a frame). The same value as a sequential fold (std::max(acc, x) keeps acc
// when x is NaN, in any order), up to the sign of a zero result.
template <typename Pick>
[[gnu::always_inline]] inline void fold_rows(const float* x, float* y, std::int64_t rows,
                                             std::int64_t len, float init, Pick pick) {
  for (std::int64_t o = 0; o < rows; ++o)
    y[o] = detail::fold_lanes<16>(x + o * len, len, init, pick);
}

YOLO_KERNEL_CLONES void max_rows(const float* x, float* y, std::int64_t rows, std::int64_t len) {
  fold_rows(x, y, rows, len, -std::numeric_limits<float>::infinity(),
            [](float a, float b) { return std::max(a, b); });
}

YOLO_KERNEL_CLONES void min_rows(const float* x, float* y, std::int64_t rows, std::int64_t len) {
  fold_rows(x, y, rows, len, std::numeric_limits<float>::infinity(),
            [](float a, float b) { return std::min(a, b); });
}

}  // namespace

void reduce(ReduceOp op, ConstTensorRef in, std::span<const std::int64_t> normalized_axes,
            TensorRef out) {
  const char* name = reduce_op_name(op);
  check_dtype(out, in.dtype, name, "output");
  const Shape kept = reduce_shape(in.shape, normalized_axes, true);
  if (out.size() != element_count(kept)) {
    fail(name, "output " + shape_text(out.shape) + " does not match input " + shape_text(in.shape) +
                   " reduced over axes " + shape_text(normalized_axes));
  }
  // Coalesce into alternating kept / reduced runs: [k0, r0, k1, r1, ...] over the input.
  const std::size_t r = in.shape.size();
  std::vector<std::int64_t> dims;
  std::vector<bool> reduced;
  for (std::size_t d = 0; d < r; ++d) {
    if (in.shape[d] == 1) continue;
    const bool red =
        std::ranges::find(normalized_axes, static_cast<std::int64_t>(d)) != normalized_axes.end();
    if (!dims.empty() && reduced.back() == red) {
      dims.back() *= in.shape[d];
    } else {
      dims.push_back(in.shape[d]);
      reduced.push_back(red);
    }
  }
  std::int64_t group = 1;  // elements reduced into each output
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (reduced[i]) group *= dims[i];
  }
  detail::dispatch_numeric(in.dtype, name, [&](auto tag) {
    using T = decltype(tag);
    const Reducer<T> red{op};
    const T* x = in.as<T>();
    T* y = out.as<T>();
    const std::int64_t n_out = out.size();
    auto finish = [&](T acc) -> T {
      if (op == ReduceOp::kMean) {
        if constexpr (std::is_floating_point_v<T>) {
          return group == 0 ? std::numeric_limits<T>::quiet_NaN() : acc / static_cast<T>(group);
        } else {
          return group == 0 ? T{0} : static_cast<T>(acc / group);
        }
      }
      return acc;
    };
    // Fast paths: everything reduced, or [outer kept, inner reduced], or [outer reduced, inner
    // kept] (the common layouts); the general case walks an odometer per output element.
    if (dims.size() == 1 && !reduced[0]) {  // nothing reduced
      std::copy_n(x, in.size(), y);
      return;
    }
    if (dims.size() <= 1 || (dims.size() == 2 && !reduced[0] && reduced[1])) {
      const bool all = dims.size() <= 1;
      const std::int64_t rows = all ? 1 : dims[0];
      const std::int64_t len = all ? in.size() : dims[1];
      if constexpr (std::is_same_v<T, float>) {
        if (op == ReduceOp::kMax) return max_rows(x, y, rows, len);
        if (op == ReduceOp::kMin) return min_rows(x, y, rows, len);
      }
      for (std::int64_t o = 0; o < rows; ++o) {
        T acc = red.init();
        const T* row = x + o * len;
        for (std::int64_t i = 0; i < len; ++i) acc = red.apply(acc, row[i]);
        y[o] = finish(acc);
      }
      return;
    }
    if (dims.size() == 2 && reduced[0] && !reduced[1]) {
      const std::int64_t len = dims[1];
      for (std::int64_t o = 0; o < len; ++o) y[o] = red.init();
      for (std::int64_t g = 0; g < dims[0]; ++g) {
        for (std::int64_t o = 0; o < len; ++o) y[o] = red.apply(y[o], x[g * len + o]);
      }
      for (std::int64_t o = 0; o < len; ++o) y[o] = finish(y[o]);
      return;
    }
    // General: for each output element, sum over the reduced dims by their strides.
    const auto strides = detail::contiguous_strides(dims);
    std::vector<std::int64_t> kept_dims, kept_strides, red_dims, red_strides;
    for (std::size_t i = 0; i < dims.size(); ++i) {
      (reduced[i] ? red_dims : kept_dims).push_back(dims[i]);
      (reduced[i] ? red_strides : kept_strides).push_back(strides[i]);
    }
    std::vector<std::int64_t> ki(kept_dims.size(), 0);
    std::vector<std::int64_t> ri(red_dims.size(), 0);
    for (std::int64_t o = 0; o < n_out; ++o) {
      std::int64_t base = 0;
      for (std::size_t k = 0; k < ki.size(); ++k) base += ki[k] * kept_strides[k];
      T acc = red.init();
      for (std::int64_t g = 0; g < group; ++g) {
        std::int64_t off = base;
        for (std::size_t k = 0; k < ri.size(); ++k) off += ri[k] * red_strides[k];
        acc = red.apply(acc, x[off]);
        for (std::size_t k = ri.size(); k-- > 0;) {
          if (++ri[k] < red_dims[k]) break;
          ri[k] = 0;
        }
      }
      y[o] = finish(acc);
      for (std::size_t k = ki.size(); k-- > 0;) {
        if (++ki[k] < kept_dims[k]) break;
        ki[k] = 0;
      }
    }
  });
}

Shape arg_reduce_shape(std::span<const std::int64_t> in, std::int64_t axis, bool keepdims) {
  const std::int64_t a = normalize_axis(axis, static_cast<std::int64_t>(in.size()), "ArgMax");
  const std::int64_t axes[] = {a};
  return reduce_shape(in, axes, keepdims);
}

void arg_reduce(ArgOp op, ConstTensorRef in, std::int64_t axis, bool select_last_index,
                TensorRef out) {
  const char* name = op == ArgOp::kArgMax ? "ArgMax" : "ArgMin";
  const auto a = static_cast<std::size_t>(normalize_axis(axis, in.rank(), name));
  check_dtype(out, DType::kInt64, name, "output");
  const std::int64_t dim = in.shape[a];
  if (dim == 0)
    fail(name, "axis " + std::to_string(axis) + " of " + shape_text(in.shape) + " is empty");
  const std::int64_t outer = element_count(in.shape.subspan(0, a));
  const std::int64_t inner = element_count(in.shape.subspan(a + 1));
  if (out.size() != outer * inner) {
    fail(name, "output " + shape_text(out.shape) + " does not match input " + shape_text(in.shape) +
                   " reduced over axis " + std::to_string(axis));
  }
  const bool is_max = op == ArgOp::kArgMax;
  detail::dispatch_numeric(in.dtype, name, [&](auto tag) {
    using T = decltype(tag);
    const T* x = in.as<T>();
    auto* y = out.as<std::int64_t>();
    for (std::int64_t o = 0; o < outer; ++o) {
      for (std::int64_t i = 0; i < inner; ++i) {
        const T* base = x + o * dim * inner + i;
        T best = base[0];
        std::int64_t best_index = 0;
        for (std::int64_t k = 1; k < dim; ++k) {
          const T v = base[k * inner];
          const bool better = is_max ? (select_last_index ? v >= best : v > best)
                                     : (select_last_index ? v <= best : v < best);
          if (better) {
            best = v;
            best_index = k;
          }
        }
        y[o * inner + i] = best_index;
      }
    }
  });
}

}  // namespace yolo::runtime::kernels
