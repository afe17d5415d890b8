// SPDX-License-Identifier: Apache-2.0
#include "runtime/kernels/elementwise.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "runtime/kernels/detail.h"

namespace yolo::runtime::kernels {
namespace {

using detail::fail;

bool is_comparison(BinaryOp op) {
  return op == BinaryOp::kEqual || op == BinaryOp::kLess || op == BinaryOp::kLessOrEqual ||
         op == BinaryOp::kGreater || op == BinaryOp::kGreaterOrEqual;
}

bool is_logical(BinaryOp op) {
  return op == BinaryOp::kAnd || op == BinaryOp::kOr || op == BinaryOp::kXor;
}

bool is_numeric(DType t) {
  return t == DType::kFloat32 || t == DType::kInt64 || t == DType::kInt32;
}

// Runs out[i] = f(a[i], b[i]) over the broadcast plan, with the common stride patterns unrolled.
template <typename TA, typename TB, typename TO, typename F>
void run_binary(ConstTensorRef a, ConstTensorRef b, TensorRef out, F f) {
  const std::span<const std::int64_t> shapes[] = {a.shape, b.shape};
  const auto plan = detail::make_broadcast_plan(shapes, out.shape);
  const TA* pa = a.as<TA>();
  const TB* pb = b.as<TB>();
  TO* po = out.as<TO>();
  detail::for_each_row(
      plan, [&](const std::int64_t* offs, std::int64_t n, const std::int64_t* st, std::int64_t o) {
        const TA* x = pa + offs[0];
        const TB* y = pb + offs[1];
        TO* z = po + o;
        if (st[0] == 1 && st[1] == 1) {
          for (std::int64_t i = 0; i < n; ++i) z[i] = f(x[i], y[i]);
        } else if (st[0] == 0 && st[1] == 1) {
          const TA xv = *x;
          for (std::int64_t i = 0; i < n; ++i) z[i] = f(xv, y[i]);
        } else if (st[0] == 1 && st[1] == 0) {
          const TB yv = *y;
          for (std::int64_t i = 0; i < n; ++i) z[i] = f(x[i], yv);
        } else {
          for (std::int64_t i = 0; i < n; ++i) z[i] = f(x[i * st[0]], y[i * st[1]]);
        }
      });
}

template <typename T>
T checked_divisor(T b, BinaryOp op) {
  if (b == T{0}) fail(binary_op_name(op), "integer division by zero");
  return b;
}

// a / b and a % b for integers without the INT_MIN / -1 trap.
template <typename T>
T int_div(T a, T b, BinaryOp op) {
  checked_divisor(b, op);
  if (b == T{-1}) return static_cast<T>(T{0} - static_cast<std::make_unsigned_t<T>>(a));
  return a / b;
}

template <typename T>
T int_rem(T a, T b, BinaryOp op) {
  checked_divisor(b, op);
  if (b == T{-1}) return 0;
  return a % b;
}

template <typename T>
void run_same_type(BinaryOp op, ConstTensorRef a, ConstTensorRef b, TensorRef out) {
  constexpr bool kFloat = std::is_floating_point_v<T>;
  switch (op) {
    case BinaryOp::kAdd:
      if constexpr (kFloat) {
        return run_binary<T, T, T>(a, b, out, [](T x, T y) { return x + y; });
      } else {
        // Wrapping like ONNX Runtime's two's-complement arithmetic, without signed overflow UB.
        using U = std::make_unsigned_t<T>;
        return run_binary<T, T, T>(a, b, out, [](T x, T y) { return static_cast<T>(U(x) + U(y)); });
      }
    case BinaryOp::kSub:
      if constexpr (kFloat) {
        return run_binary<T, T, T>(a, b, out, [](T x, T y) { return x - y; });
      } else {
        using U = std::make_unsigned_t<T>;
        return run_binary<T, T, T>(a, b, out, [](T x, T y) { return static_cast<T>(U(x) - U(y)); });
      }
    case BinaryOp::kMul:
      if constexpr (kFloat) {
        return run_binary<T, T, T>(a, b, out, [](T x, T y) { return x * y; });
      } else {
        using U = std::make_unsigned_t<T>;
        return run_binary<T, T, T>(a, b, out, [](T x, T y) { return static_cast<T>(U(x) * U(y)); });
      }
    case BinaryOp::kDiv:
      if constexpr (kFloat) {
        return run_binary<T, T, T>(a, b, out, [](T x, T y) { return x / y; });
      } else {
        return run_binary<T, T, T>(a, b, out, [op](T x, T y) { return int_div(x, y, op); });
      }
    case BinaryOp::kMin:
      return run_binary<T, T, T>(a, b, out, [](T x, T y) { return std::min(x, y); });
    case BinaryOp::kMax:
      return run_binary<T, T, T>(a, b, out, [](T x, T y) { return std::max(x, y); });
    case BinaryOp::kMod:
      if constexpr (!kFloat) {
        return run_binary<T, T, T>(a, b, out, [op](T x, T y) {
          T r = int_rem(x, y, op);
          if (r != 0 && ((r < 0) != (y < 0))) r = static_cast<T>(r + y);
          return r;
        });
      }
      break;
    case BinaryOp::kFmod:
      if constexpr (kFloat) {
        return run_binary<T, T, T>(a, b, out, [](T x, T y) { return std::fmod(x, y); });
      } else {
        return run_binary<T, T, T>(a, b, out, [op](T x, T y) { return int_rem(x, y, op); });
      }
    case BinaryOp::kEqual:
      return run_binary<T, T, std::uint8_t>(a, b, out, [](T x, T y) { return x == y; });
    case BinaryOp::kLess:
      return run_binary<T, T, std::uint8_t>(a, b, out, [](T x, T y) { return x < y; });
    case BinaryOp::kLessOrEqual:
      return run_binary<T, T, std::uint8_t>(a, b, out, [](T x, T y) { return x <= y; });
    case BinaryOp::kGreater:
      return run_binary<T, T, std::uint8_t>(a, b, out, [](T x, T y) { return x > y; });
    case BinaryOp::kGreaterOrEqual:
      return run_binary<T, T, std::uint8_t>(a, b, out, [](T x, T y) { return x >= y; });
    default:
      break;
  }
  fail(binary_op_name(op), std::string("not implemented for ") + dtype_name(a.dtype));
}

template <typename TA, typename TB>
void run_pow(ConstTensorRef a, ConstTensorRef b, TensorRef out) {
  if constexpr (std::is_same_v<TA, float> && std::is_same_v<TB, float>) {
    run_binary<float, float, float>(a, b, out, [](float x, float y) { return std::pow(x, y); });
  } else {
    run_binary<TA, TB, TA>(a, b, out, [](TA x, TB y) {
      return static_cast<TA>(std::pow(static_cast<double>(x), static_cast<double>(y)));
    });
  }
}

}  // namespace

const char* binary_op_name(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return "Add";
    case BinaryOp::kSub:
      return "Sub";
    case BinaryOp::kMul:
      return "Mul";
    case BinaryOp::kDiv:
      return "Div";
    case BinaryOp::kPow:
      return "Pow";
    case BinaryOp::kMin:
      return "Min";
    case BinaryOp::kMax:
      return "Max";
    case BinaryOp::kMod:
    case BinaryOp::kFmod:
      return "Mod";
    case BinaryOp::kEqual:
      return "Equal";
    case BinaryOp::kLess:
      return "Less";
    case BinaryOp::kLessOrEqual:
      return "LessOrEqual";
    case BinaryOp::kGreater:
      return "Greater";
    case BinaryOp::kGreaterOrEqual:
      return "GreaterOrEqual";
    case BinaryOp::kAnd:
      return "And";
    case BinaryOp::kOr:
      return "Or";
    case BinaryOp::kXor:
      return "Xor";
  }
  return "?";
}

Shape broadcast_shape(std::span<const std::int64_t> a, std::span<const std::int64_t> b,
                      const char* op) {
  const std::size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const std::int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      fail(op, "shapes " + shape_text(a) + " and " + shape_text(b) + " cannot be broadcast (dim " +
                   std::to_string(i) + ": " + std::to_string(da) + " vs " + std::to_string(db) +
                   ")");
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Shape broadcast_shapes(std::span<const Shape> shapes, const char* op) {
  Shape out;
  for (const auto& s : shapes) out = broadcast_shape(out, s, op);
  return out;
}

DType binary_result_dtype(BinaryOp op, DType a, DType b) {
  const char* name = binary_op_name(op);
  if (op == BinaryOp::kPow) {
    if (!is_numeric(a) || !is_numeric(b)) {
      fail(name, std::string("unsupported dtypes ") + dtype_name(a) + " and " + dtype_name(b) +
                     " (float32, int64 or int32 expected)");
    }
    return a;
  }
  if (a != b) {
    fail(name,
         std::string("inputs have different dtypes ") + dtype_name(a) + " and " + dtype_name(b));
  }
  if (is_logical(op)) {
    if (a != DType::kBool) fail(name, std::string("expected bool inputs, got ") + dtype_name(a));
    return DType::kBool;
  }
  if (op == BinaryOp::kEqual && a == DType::kBool) return DType::kBool;
  if (!is_numeric(a)) {
    fail(name,
         std::string("unsupported dtype ") + dtype_name(a) + " (float32, int64 or int32 expected)");
  }
  if (op == BinaryOp::kMod && a == DType::kFloat32) {
    fail(name, "fmod=0 is only defined for integers; float inputs need fmod=1");
  }
  return is_comparison(op) ? DType::kBool : a;
}

void binary(BinaryOp op, ConstTensorRef a, ConstTensorRef b, TensorRef out) {
  const char* name = binary_op_name(op);
  const DType result = binary_result_dtype(op, a.dtype, b.dtype);
  check_dtype(out, result, name, "output");
  check_shape(out, broadcast_shape(a.shape, b.shape, name), name, "output");
  if (op == BinaryOp::kPow) {
    detail::dispatch_numeric(a.dtype, name, [&](auto ta) {
      detail::dispatch_numeric(b.dtype, name,
                               [&](auto tb) { run_pow<decltype(ta), decltype(tb)>(a, b, out); });
    });
    return;
  }
  if (is_logical(op) || a.dtype == DType::kBool) {
    switch (op) {
      case BinaryOp::kAnd:
        return run_binary<std::uint8_t, std::uint8_t, std::uint8_t>(
            a, b, out, [](std::uint8_t x, std::uint8_t y) { return (x != 0) && (y != 0); });
      case BinaryOp::kOr:
        return run_binary<std::uint8_t, std::uint8_t, std::uint8_t>(
            a, b, out, [](std::uint8_t x, std::uint8_t y) { return (x != 0) || (y != 0); });
      case BinaryOp::kXor:
      case BinaryOp::kEqual: {
        const bool equal = op == BinaryOp::kEqual;
        return run_binary<std::uint8_t, std::uint8_t, std::uint8_t>(
            a, b, out,
            [equal](std::uint8_t x, std::uint8_t y) { return ((x != 0) == (y != 0)) == equal; });
      }
      default:
        break;
    }
  }
  detail::dispatch_numeric(a.dtype, name,
                           [&](auto t) { run_same_type<decltype(t)>(op, a, b, out); });
}

void variadic(BinaryOp op, std::span<const ConstTensorRef> inputs, TensorRef out) {
  const char* name = binary_op_name(op);
  if (inputs.empty()) fail(name, "needs at least one input");
  std::vector<Shape> shapes;
  shapes.reserve(inputs.size());
  for (const auto& in : inputs) shapes.emplace_back(in.shape.begin(), in.shape.end());
  check_shape(out, broadcast_shapes(shapes, name), name, "output");
  if (inputs.size() == 1) {
    copy(inputs[0], out, name);
    return;
  }
  binary(op, inputs[0], inputs[1], out);
  for (std::size_t i = 2; i < inputs.size(); ++i) binary(op, out, inputs[i], out);
}

void where(ConstTensorRef condition, ConstTensorRef x, ConstTensorRef y, TensorRef out) {
  check_dtype(condition, DType::kBool, "Where", "condition");
  check_dtype(y, x.dtype, "Where", "Y");
  check_dtype(out, x.dtype, "Where", "output");
  const Shape shapes[] = {Shape(condition.shape.begin(), condition.shape.end()),
                          Shape(x.shape.begin(), x.shape.end()),
                          Shape(y.shape.begin(), y.shape.end())};
  check_shape(out, broadcast_shapes(shapes, "Where"), "Where", "output");
  const std::span<const std::int64_t> spans[] = {condition.shape, x.shape, y.shape};
  const auto plan = detail::make_broadcast_plan(spans, out.shape);
  detail::dispatch_width(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    const auto* c = condition.as<std::uint8_t>();
    const T* px = x.as<T>();
    const T* py = y.as<T>();
    T* po = out.as<T>();
    detail::for_each_row(plan, [&](const std::int64_t* offs, std::int64_t n, const std::int64_t* st,
                                   std::int64_t o) {
      for (std::int64_t i = 0; i < n; ++i) {
        po[o + i] = c[offs[0] + i * st[0]] ? px[offs[1] + i * st[1]] : py[offs[2] + i * st[2]];
      }
    });
  });
}

}  // namespace yolo::runtime::kernels
